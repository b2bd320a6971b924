// yt-gst — padding text into columns for help and lists.

extension String {
    /// The string padded with spaces to at least `width` characters.
    package func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
