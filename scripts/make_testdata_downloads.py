"""Writes testdata/downloads: a small folder laid out as yt-dlp writes it
(`-o "downloads/%(channel)s/%(id)s.%(ext)s"` with --write-info-json and
--write-subs), for the docs' examples and the fake yt-dlp of
scripts/docs_commands.py. Deterministic: run it again and nothing changes.

Usage: python3 scripts/make_testdata_downloads.py [OUT]   (default testdata/downloads)"""

import json
import os
import sys

CHANNELS = {
    ("Kitchen Talks", "UCkitchentalks000000001"): [
        ("kT1-brewing", "Brewing coffee for a crowd", "20240112", [
            "welcome back to kitchen talks",
            "today we brew coffee for twenty people",
            "the single serve k cups are quick but wasteful",
            "a large french press holds about two litres",
            "grind the beans coarse for the press",
            "let it steep four minutes then plunge slowly",
        ]),
        ("kT2-bread01", "Sourdough without the fuss", "20240309", [
            "this week a sourdough loaf",
            "the starter should double in six hours",
            "mix flour water salt and starter",
            "fold the dough every half hour",
            "bake it hot in a covered pot",
            "and that is a loaf anyone can make",
        ]),
        ("kT3-knives_", "Keeping knives sharp", "20240521", [
            "a sharp knife is a safe knife",
            "hold the blade at fifteen degrees on the stone",
            "ten strokes per side then hone",
            "test it on a sheet of paper",
        ]),
    ],
    ("Night Garden", "UCnightgarden00000000002"): [
        ("nG1-moonflw", "Flowers that open at night", "20231030", [
            "good evening gardeners",
            "moonflowers open after sunset",
            "evening primrose smells sweetest at dusk",
            "plant them near a path you walk at night",
        ]),
        ("nG2-compost", "Compost in a small yard", "20240215", [
            "compost does not need much room",
            "mix greens and browns in equal parts",
            "coffee grounds count as greens",
            "turn the pile every week or two",
            "in a few months it is ready for the beds",
        ]),
    ],
}


def vtt(lines):
    out = ["WEBVTT", "Kind: captions", "Language: en", ""]
    for i, text in enumerate(lines):
        start, end = i * 4, i * 4 + 4
        out += [f"00:00:{start:02d}.000 --> 00:00:{end:02d}.000", text, ""]
    return "\n".join(out)


def main(out):
    for (channel, channel_id), videos in CHANNELS.items():
        folder = os.path.join(out, channel)
        os.makedirs(folder, exist_ok=True)
        for vid, title, date, lines in videos:
            info = {
                "id": vid, "title": title, "channel": channel, "channel_id": channel_id,
                "uploader": channel, "upload_date": date, "duration": len(lines) * 4,
                "webpage_url": f"https://www.youtube.com/watch?v={vid}",
                "extractor": "youtube", "extractor_key": "Youtube", "language": "en",
                "description": f"{title}, from {channel}.",
            }
            with open(os.path.join(folder, f"{vid}.info.json"), "w") as f:
                json.dump(info, f, indent=1)
                f.write("\n")
            with open(os.path.join(folder, f"{vid}.en.vtt"), "w") as f:
                f.write(vtt(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/downloads")
