// yt-gst — the broadcast's rolling HLS playlist: numbering, window, discontinuities and deletion (RFC 8216).
import Testing

@testable import Streaming

@Suite struct HLSPlaylistTests {
    /// `count` segments of 2 s named as the sink names them, appended in order; the files to delete, in order.
    @discardableResult
    static func append(_ count: Int, to playlist: inout HLSPlaylist, seconds: Double = 2) -> [String] {
        (0..<count).flatMap { _ in
            let number = playlist.nextNumber
            let name = "segment" + String(repeating: "0", count: 5 - String(number).count) + String(number) + ".ts"
            return playlist.append(name: name, seconds: seconds)
        }
    }

    @Test func rollsAWindowWhoseMediaSequenceOnlyGrows() {
        var playlist = HLSPlaylist(targetSeconds: 2, length: 3)
        Self.append(2, to: &playlist)
        #expect(
            playlist.text
                == """
                #EXTM3U
                #EXT-X-VERSION:3
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-TARGETDURATION:2
                #EXTINF:2.000,
                segment00000.ts
                #EXTINF:2.000,
                segment00001.ts

                """)
        var sequences: [Int] = []
        for _ in 0..<5 {
            Self.append(1, to: &playlist)
            sequences.append(playlist.segments.first?.number ?? -1)
        }
        #expect(sequences == [0, 1, 2, 3, 4])
        #expect(playlist.segments.map(\.name) == ["segment00004.ts", "segment00005.ts", "segment00006.ts"])
        #expect(playlist.text.contains("#EXT-X-MEDIA-SEQUENCE:4\n"))
    }

    /// Files stay on disk for `extraFiles` segments after they leave the playlist, then go, oldest first, once each.
    @Test func deletesFilesSomeSegmentsAfterTheyLeft() {
        var playlist = HLSPlaylist(targetSeconds: 2, length: 2)
        let firstFive = Self.append(2 + HLSPlaylist.extraFiles, to: &playlist)
        #expect(firstFive.isEmpty)
        #expect(Self.append(1, to: &playlist) == ["segment00000.ts"])
        #expect(Self.append(3, to: &playlist) == ["segment00001.ts", "segment00002.ts", "segment00003.ts"])
    }

    /// A new pipeline: numbering goes on, its first segment follows EXT-X-DISCONTINUITY, and when that segment
    /// leaves the playlist EXT-X-DISCONTINUITY-SEQUENCE counts it (RFC 8216 6.2.2).
    @Test func aNewPipelineIsADiscontinuityCountedWhenItScrollsOut() {
        var playlist = HLSPlaylist(targetSeconds: 2, length: 3)
        playlist.restart()  // the first pipeline: nothing before it to break from
        Self.append(3, to: &playlist)
        #expect(!playlist.text.contains("DISCONTINUITY"))
        playlist.restart()
        Self.append(1, to: &playlist)
        #expect(playlist.segments.map(\.number) == [1, 2, 3])
        #expect(playlist.segments.map(\.discontinuity) == [false, false, true])
        #expect(playlist.text.hasSuffix("segment00002.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000,\nsegment00003.ts\n"))
        playlist.restart()  // two pipelines in a row
        Self.append(1, to: &playlist)
        #expect(playlist.segments.map(\.discontinuity) == [false, true, true])
        #expect(!playlist.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE"))
        Self.append(2, to: &playlist)
        #expect(playlist.discontinuitySequence == 1 && playlist.segments.map(\.discontinuity) == [true, false, false])
        #expect(playlist.text.contains("#EXT-X-TARGETDURATION:2\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        Self.append(1, to: &playlist)
        #expect(playlist.discontinuitySequence == 2 && !playlist.text.contains("#EXT-X-DISCONTINUITY\n"))
    }

    /// A restart before any segment marks nothing; a restart marks only the next segment.
    @Test func aRestartBeforeAnySegmentMarksNothing() {
        var playlist = HLSPlaylist(targetSeconds: 1, length: 5)
        playlist.restart()
        playlist.restart()
        Self.append(3, to: &playlist, seconds: 1)
        #expect(playlist.segments.allSatisfy { !$0.discontinuity })
    }

    /// The target duration is the segment length, or the longest segment (rounded) if one was longer; it never
    /// shrinks again.
    @Test func targetDurationCoversEverySegmentAndNeverShrinks() {
        var playlist = HLSPlaylist(targetSeconds: 2, length: 2)
        _ = playlist.append(name: "a.ts", seconds: 2.4)
        #expect(playlist.targetDuration == 2)
        _ = playlist.append(name: "b.ts", seconds: 3.6)
        #expect(playlist.targetDuration == 4)
        Self.append(3, to: &playlist)
        #expect(playlist.text.contains("#EXT-X-TARGETDURATION:4\n"))
    }

    @Test func theEndIsEndList() {
        var playlist = HLSPlaylist(targetSeconds: 2, length: 3)
        Self.append(1, to: &playlist, seconds: 0.4267)
        playlist.end()
        #expect(playlist.text.hasSuffix("#EXTINF:0.427,\nsegment00000.ts\n#EXT-X-ENDLIST\n"))
    }

    @Test(arguments: [(1.984, "1.984"), (0.0004, "0.000"), (2.0, "2.000"), (0.05, "0.050"), (59.9996, "60.000")])
    func extinfHasThreeDecimals(seconds: Double, text: String) {
        #expect(HLSPlaylist.decimal(seconds) == text)
    }
}
