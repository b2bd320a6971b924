// yt-gst — what a key asks the player to do.

/// What a key asks the player to do.
enum PlayerAction: Equatable {
    case togglePause
    /// Relative seek in seconds.
    case seek(Double)
    /// Back to the start of the file.
    case restart
    /// Volume change in percent points.
    case volume(Int)
    case toggleMute
    /// One step faster (+1) or slower (-1), pitch kept.
    case rate(Int)
    case next, previous
    /// Set A, then B, then clear the A-B loop.
    case loopPoint
    /// Start typing a time for an absolute seek.
    case beginGoto
    case showKeys
    case quit
}
