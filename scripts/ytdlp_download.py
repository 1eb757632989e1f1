#!/usr/bin/env python3
"""Writes a yt-dlp download of the shape real channels have, for the
import benchmark: one folder per channel (as `yt-dlp -o
"%(channel)s/%(id)s.%(ext)s"` writes), each video an `<id>.info.json`
beside an `<id>.en.vtt`, the captions being real speech (the TWIML
episodes, reused in turn).

Usage: python3 scripts/ytdlp_download.py CAPTIONS_DIR OUT_DIR [VIDEOS] [CHANNELS]
(defaults: 5805 videos in 5 channels). Refuses an OUT_DIR that exists.
"""

import json
import os
import sys

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def video_id(n):
    """An 11-character id like YouTube's; about one in 64 starts with `-`."""
    out = []
    x = n * 2654435761 % (64 ** 11)
    for _ in range(11):
        out.append(ALPHABET[x % 64])
        x //= 64
    return "".join(out)


def info(vid, n, channel, title, duration, **more):
    """The `<id>.info.json` of video `n` of channel number `channel`, as
    yt-dlp writes one (only the fields the importer reads), with `more`
    after its title."""
    return {
        "id": vid,
        "title": title,
        **more,
        "upload_date": f"20{10 + n % 15:02d}{1 + n % 12:02d}{1 + n % 28:02d}",
        "duration": duration,
        "channel": f"Channel {channel}",
        "channel_id": f"UCchannel{channel:04d}",
        "uploader_id": f"@channel{channel}",
        "extractor_key": "Youtube",
        "webpage_url": f"https://www.youtube.com/watch?v={vid}",
        "automatic_captions": {"en": []},
        "subtitles": {},
    }


def main():
    captions, out = sys.argv[1], sys.argv[2]
    videos = int(sys.argv[3]) if len(sys.argv) > 3 else 5805
    channels = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    if os.path.exists(out):
        sys.exit(f"{out} exists: choose a new folder")
    episodes = sorted(f for f in os.listdir(captions) if f.endswith(".vtt"))
    texts = [open(os.path.join(captions, f), encoding="utf-8").read() for f in episodes]
    total = 0
    for n in range(videos):
        c = n % channels
        folder = os.path.join(out, f"Channel {c}")
        os.makedirs(folder, exist_ok=True)
        vid = video_id(n + 1)
        with open(os.path.join(folder, f"{vid}.info.json"), "w") as f:
            json.dump(info(vid, n, c, f"Episode {n}: {episodes[n % len(episodes)][:60]}", 3600.0), f)
        text = texts[n % len(texts)]
        with open(os.path.join(folder, f"{vid}.en.vtt"), "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text.encode())
    print(f"{videos} videos in {channels} channel folders, {total / 1e6:.0f} MB of captions, in {out}")


if __name__ == "__main__":
    main()
