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
    private let order: Mutex<[Int]>

    /// An order over `files` for `passes` passes (nil = forever), each shuffled anew when `shuffle` is set.
    public convenience init(files: [String], shuffle: Bool = false, passes: Int? = 1) {
        self.init(files: files, shuffle: shuffle, passes: passes, played: [])
    }

    private init(files: [String], shuffle: Bool, passes: Int?, played: [Int]) {
        self.files = files
        self.shuffle = shuffle
        self.passes = passes
        self.order = Mutex(played)
    }

    /// This order up to `position` as it was, and from there `shuffle` and `passes` anew (a listener's change while
    /// it plays): the rest of that position's pass plays the files not yet played in it (shuffled or as given), and
    /// `passes` counts from that pass on (1: it is the last).
    public func changed(shuffle: Bool, passes: Int?, after position: Int) -> PlayOrder {
        guard !files.isEmpty, position >= 0 else { return PlayOrder(files: files, shuffle: shuffle, passes: passes) }
        _ = entry(at: position)
        let pass = position / files.count
        let played = order.withLock { Array($0[...position]) }
        let playedInPass = Set(played[(pass * files.count)...])
        let rest = files.indices.filter { !playedInPass.contains($0) }
        return PlayOrder(
            files: files, shuffle: shuffle, passes: passes.map { pass + $0 },
            played: played + (shuffle ? rest.shuffled() : rest))
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
