//! Counts in messages: `1 video`, `2 videos`, never `1 videos`.

/// `n` and the noun, plural unless `n` is 1 (nouns that take `-s`).
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(counted(1, "video"), "1 video");
        assert_eq!(counted(0, "video"), "0 videos");
        assert_eq!(counted(2, "channel"), "2 channels");
    }
}
