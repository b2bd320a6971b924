// yt-gst — text made safe for the shell completion scripts.

extension String {
    /// Safe inside single quotes in a shell script.
    var replacingQuotes: String { replacingOccurrences("'", with: "'\\''") }
    /// Safe inside zsh's `[description]`.
    var replacingBrackets: String { replacingOccurrences("[", with: "(").replacingOccurrences("]", with: ")") }

    func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
