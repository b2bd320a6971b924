// yt-gst — the rolling HLS playlist of a broadcast: numbers that only grow, across every pipeline it builds.
import WAV

/// An HLS media playlist (RFC 8216) that rolls on as segments are finished: the last `length` of them listed, the
/// files that fell out deleted a few segments later.
///
/// One playlist lives as long as the broadcast, however many pipelines it builds (a file that needs another decoder,
/// a resumed connection): each segment takes the next media sequence number, the segment sink starting its file
/// numbers at `nextNumber`, so the media sequence never goes back and a file name is never used twice (RFC 8216
/// 6.2.1: clients that already saw a number never fetch it again). A new pipeline starts its timestamps again, so
/// its first segment carries EXT-X-DISCONTINUITY, and the discontinuities that scrolled out are counted in
/// EXT-X-DISCONTINUITY-SEQUENCE (6.2.2).
struct HLSPlaylist {
    /// One listed segment.
    struct Segment: Equatable {
        /// Its media sequence number.
        var number: Int
        /// Its file name, relative to the playlist.
        var name: String
        var seconds: Double
        /// Its timestamps do not follow the segment before (a new pipeline): EXT-X-DISCONTINUITY.
        var discontinuity: Bool
    }

    /// Files kept after they leave the playlist, as hlssink2 keeps them: a client that read the playlist just
    /// before can still fetch them.
    static let extraFiles = 3

    /// The segment duration the sink aims at (--segment).
    let targetSeconds: Int
    /// Segments listed (--playlist-length).
    let length: Int
    private(set) var segments: [Segment] = []
    /// The number the next segment takes (the count of segments so far).
    private(set) var nextNumber = 0
    /// Discontinuities that left the playlist.
    private(set) var discontinuitySequence = 0
    /// EXT-X-TARGETDURATION: `targetSeconds`, or more if a segment was longer; it never shrinks (6.2.1: it must
    /// not change).
    private(set) var targetDuration: Int
    /// The broadcast is over: EXT-X-ENDLIST.
    private(set) var ended = false
    /// Names that left the playlist and are still on disk, oldest first.
    private var unlisted: [String] = []
    private var discontinuityNext = false

    init(targetSeconds: Int, length: Int) {
        self.targetSeconds = targetSeconds
        self.length = length
        targetDuration = targetSeconds
    }

    /// A new pipeline takes over: the next segment follows a discontinuity, unless it is the first of all.
    mutating func restart() { discontinuityNext = nextNumber > 0 }

    /// Lists a finished segment, the oldest leaving when there are more than `length`.
    ///
    /// - Returns: the files no client can want any more (out of the playlist for `extraFiles` segments), to delete.
    mutating func append(name: String, seconds: Double) -> [String] {
        segments.append(Segment(number: nextNumber, name: name, seconds: seconds, discontinuity: discontinuityNext))
        nextNumber += 1
        discontinuityNext = false
        targetDuration = max(targetDuration, Int(seconds.rounded()))
        while segments.count > length {
            let gone = segments.removeFirst()
            if gone.discontinuity { discontinuitySequence += 1 }
            unlisted.append(gone.name)
        }
        let stale = Array(unlisted.dropLast(HLSPlaylist.extraFiles))
        unlisted.removeFirst(stale.count)
        return stale
    }

    /// The broadcast ended: no more segments will come.
    mutating func end() { ended = true }

    /// The playlist file's text.
    var text: String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-MEDIA-SEQUENCE:\(segments.first?.number ?? nextNumber)",
            "#EXT-X-TARGETDURATION:\(targetDuration)",
        ]
        if discontinuitySequence > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)") }
        for segment in segments {
            if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            lines += ["#EXTINF:\(HLSPlaylist.decimal(segment.seconds)),", segment.name]
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Seconds with three decimals ("1.984"), as EXTINF takes them.
    static func decimal(_ seconds: Double) -> String {
        let milliseconds = Int((max(seconds, 0) * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
