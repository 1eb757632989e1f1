//! Byte sizes as people write them: `4MB`, `1.3GB`, `512KiB`, `2000000`.

/// Parses a size; decimal units are powers of 1000, binary ones of 1024.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number.parse().map_err(|_| {
        format!("{text:?} is not a size: write a number with an optional unit, like 5MB or 1.3GB")
    })?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        other => {
            return Err(format!(
                "{other:?} is not a size unit: use B, KB, MB, GB, KiB, MiB or GiB"
            ))
        }
    };
    Ok((n * scale as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_in_both_unit_systems() {
        assert_eq!(parse_size("4MB").unwrap(), 4_000_000);
        assert_eq!(parse_size("1.3GB").unwrap(), 1_300_000_000);
        assert_eq!(parse_size("2 MiB").unwrap(), 2 << 20);
        assert_eq!(parse_size("1234").unwrap(), 1234);
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("5XB").unwrap_err().contains("not a size unit"));
    }
}
