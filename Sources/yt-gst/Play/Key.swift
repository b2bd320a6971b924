// yt-gst — a key press decoded from terminal input.

/// A key press decoded from terminal input.
enum Key: Equatable {
    case char(Character)
    case left, right, up, down
    case shiftLeft, shiftRight, pageUp, pageDown
    case escape, enter, backspace
}
