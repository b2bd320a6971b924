// yt-gst — the order files play in: as given or shuffled, once, N times or forever.
import Synchronization

/// Positions 0, 1, 2, ... of a play-through of `files`, computed as they are asked for, so a list repeated forever
/// costs nothing. Shuffled passes are each a new permutation. Thread-safe: the feeder asks from a streaming thread.
public final class PlayOrder: Sendable {
    /// The paths to play, as given; positions map into it through the (possibly shuffled) order.
    public let files: [String]
    /// Whether each pass plays the files in a new random order rather than as given.
    public let shuffle: Bool
    /// Passes over the whole list: nil = forever.
    public let passes: Int?
    private let order: Mutex<[Int]> = Mutex([])

    /// An order over `files` for `passes` passes (nil = forever), each shuffled anew when `shuffle` is set.
    public init(files: [String], shuffle: Bool = false, passes: Int? = 1) {
        self.files = files
        self.shuffle = shuffle
        self.passes = passes
    }

    /// The file index at play position `position`, or nil past the end.
    public func index(at position: Int) -> Int? {
        guard position >= 0, !files.isEmpty else { return nil }
        if let passes, position >= files.count * passes { return nil }
        return entry(at: position)
    }

    /// The path at `position`, or nil past the end.
    public func path(at position: Int) -> String? { index(at: position).map { files[$0] } }

    /// Files in one pass: a position's place in its pass is `position % count` (shown as `n/N`).
    public var count: Int { files.count }

    private func entry(at position: Int) -> Int {
        order.withLock { order in
            while order.count <= position {
                let pass = Array(files.indices)
                order += shuffle ? pass.shuffled() : pass
            }
            return order[position]
        }
    }
}
