// yt-gst — what the control service asks of a stream, on real sessions sending RTP to a socket of the test's:
// seeks, loop and shuffle changed live, the gain, and the model's now playing with one onChange per change.
import Control
import Foundation
import Glibc
import GstPlayer
import TestSupport
import Testing

@testable import Streaming

/// Where each frame of some 16-bit stereo noise files is, found from two frames' samples (noise: no pair repeats).
private struct FrameFinder {
    private var places: [UInt64: (file: Int, frame: Int)] = [:]

    init(_ files: [SyntheticWAV]) {
        for (index, file) in files.enumerated() {
            file.samples.withUnsafeBytes { bytes in
                for frame in 0..<(file.frames - 1) {
                    places[bytes.loadUnaligned(fromByteOffset: frame * 4, as: UInt64.self)] = (index, frame)
                }
            }
        }
    }

    /// The file and frame where an L16 (big-endian) payload starts; nil when it is not in the files as they are.
    func place(of payload: [UInt8]) -> (file: Int, frame: Int)? {
        guard payload.count >= 8 else { return nil }
        let key = (0..<8).reduce(UInt64(0)) { $0 | UInt64(payload[$1 ^ 1]) << (8 * UInt64($1)) }
        return places[key]
    }
}

/// The samples of an L16 payload (big-endian), interleaved.
private func samples(_ payload: [UInt8]) -> [Int16] {
    stride(from: 0, to: payload.count - 1, by: 2).map {
        Int16(bitPattern: UInt16(payload[$0]) << 8 | UInt16(payload[$0 + 1]))
    }
}

/// Ports of their own per process and test (RTP, RTCP and clock: 4 each), away from `StreamSessionTests`'.
private let controlPort = 44_000 + Int(getpid() % 1_000) * 16

@Suite(.serialized) struct StreamControlTests {
    let dir: URL

    init() throws { dir = try Paths.makeScratch("stream-control") }

    /// Noise files of `seconds` each (different seeds), written as n0.wav, n1.wav, ...
    func noise(_ seconds: [Double]) throws -> (paths: [String], files: [SyntheticWAV]) {
        let files = seconds.enumerated().map { SyntheticWAV.noise(frames: Int($1 * 44_100), seed: UInt64($0 + 1)) }
        let paths = try files.enumerated().map { try $1.write(to: dir.appendingPathComponent("n\($0).wav")) }
        return (paths, files)
    }

    /// A session of `files` to the test's port with a model fed its events; `observe` sees each event after the
    /// model. A watchdog stops it after 20 s.
    func run(
        _ files: [String], model: StreamModel, port: Int,
        observe: @escaping (StreamSession.Event) -> Void
    ) throws -> StreamSession.Ending {
        var configuration = StreamSession.Configuration(
            files: files, destinations: [.rtp(RTPEndpoint(host: "127.0.0.1", port: port, listen: false))])
        configuration.statusInterval = .milliseconds(50)
        let session = StreamSession(configuration) { event in
            model.update(event)
            observe(event)
        }
        model.control = session.control
        let control = session.control
        let watchdog = DispatchWorkItem { control.stop() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        return try session.run()
    }

    /// Where each run of packets that follow one another in a file starts (a seek, a new file or a repeat starts
    /// a run).
    fileprivate static func runs(_ packets: [RTPPackets.Arrival], _ finder: FrameFinder) -> [(file: Int, frame: Int)] {
        var starts: [(file: Int, frame: Int)] = []
        var next: (file: Int, frame: Int)?
        for packet in packets {
            guard let place = finder.place(of: packet.payload) else { continue }
            if next == nil || next! != place { starts.append(place) }
            next = (place.file, place.frame + packet.payload.count / 4)
        }
        return starts
    }

    /// The largest step between two packets' RTP timestamps beyond the packet's own length, in seconds; nil when
    /// one stepped back.
    static func largestTimestampGap(_ packets: [RTPPackets.Arrival]) -> Double? {
        var largest = 0.0
        for (a, b) in zip(packets, packets.dropFirst()) {
            let step = Int64(Int32(bitPattern: b.timestamp &- a.timestamp)) - Int64(a.payload.count / 4)
            if step < 0 { return nil }
            largest = max(largest, Double(step) / 44_100)
        }
        return largest
    }

    /// An absolute seek lands on its frame, a relative one where its event says, one past the end moves to the next
    /// file; the RTP timestamps go on with the clock (no step back, no jump beyond the refill); one onChange each.
    @Test func seeksLandWhereAsked() throws {
        defer { Paths.removeScratch(dir) }
        let (paths, files) = try noise([4, 2])
        let packets = try RTPPackets(port: controlPort)
        defer { packets.stop() }
        let model = StreamModel()
        var changes = 0
        model.onChange = { changes += 1 }
        var seeked: [Double] = []
        var started: [Int] = []
        var step = 0
        var since = ContinuousClock.now
        let ending = try run(paths, model: model, port: controlPort) { event in
            switch event {
            case .seeked(let time): seeked.append(time.seconds)
            case .fileChanged(_, let position): started.append(position)
            case .status(let status):
                guard ContinuousClock.now - since > .milliseconds(400), let time = status.fileTime else { return }
                switch step {
                case 0 where time.seconds >= 0.5: model.seek(to: 2)
                case 1 where seeked.count == 1: model.seek(by: 0.5)
                case 2 where seeked.count == 2: model.seek(by: 10)
                case 3 where started.count == 2: model.stop()
                default: return
                }
                step += 1
                since = .now
            default: break
            }
        }
        #expect(ending == .stopped(.requested) && step == 4)
        #expect(started == [0, 1], "\(started)")
        try #require(seeked.count == 2, "\(seeked)")
        #expect(seeked[0] == 2 && seeked[1] > 2.6 && seeked[1] < 3.3, "\(seeked)")
        let runs = Self.runs(packets.all, FrameFinder(files)).map { "\($0.file):\($0.frame)" }
        let second = Int((seeked[1] * 44_100).rounded())
        #expect(runs == ["0:0", "0:88200", "0:\(second)", "1:0"], "\(runs), second seek at \(second)")
        let gap = Self.largestTimestampGap(packets.all)
        #expect(gap != nil && gap! < 0.5, "timestamps: largest gap \(String(describing: gap)) s (nil: a step back)")
        #expect(changes == started.count + seeked.count, "\(changes) onChange")
        #expect(model.path == paths[1] && model.duration == 2 && model.title == "n1.wav")
    }

    /// Loop track repeats the file going out, gaplessly, until loop none lets the next one follow; one onChange per
    /// setting and per start.
    @Test func loopTrackRepeatsTheFile() throws {
        defer { Paths.removeScratch(dir) }
        let (paths, files) = try noise([1, 0.5])
        let packets = try RTPPackets(port: controlPort + 4)
        defer { packets.stop() }
        let model = StreamModel()
        var changes = 0
        model.onChange = { changes += 1 }
        var started: [Int] = []
        let ending = try run(paths, model: model, port: controlPort + 4) { event in
            switch event {
            case .fileChanged(_, let position):
                started.append(position)
                if started.count == 3 { model.setLoop(.none) }
            case .status where model.loop == .none && started == [0]:
                model.setLoop(.track)
            default: break
            }
        }
        #expect(ending == .finished(someFilesFailed: false))
        #expect(started.count >= 4 && started.dropLast().allSatisfy { $0 == 0 } && started.last == 1, "\(started)")
        let runs = Self.runs(packets.all, FrameFinder(files)).map { "\($0.file):\($0.frame)" }
        #expect(runs == Array(repeating: "0:0", count: started.count - 1) + ["1:0"], "\(runs)")
        // Each pass follows the last with no gap: the RTP timestamps go on packet after packet.
        let gap = Self.largestTimestampGap(packets.all)
        #expect(gap != nil && gap! < 0.005, "timestamps: largest gap \(String(describing: gap)) s")
        #expect(changes == started.count + 2, "\(changes) onChange")
    }

    /// Shuffle set as the first file starts plays the rest in another order, each once (the order is changed under
    /// the chain's lock: a file started meanwhile on the streaming thread once played twice, and one not at all).
    @Test func shuffleChangesTheOrderLive() throws {
        defer { Paths.removeScratch(dir) }
        let (paths, _) = try noise(Array(repeating: 0.25, count: 8))
        let model = StreamModel()
        var changes = 0
        model.onChange = { changes += 1 }
        var played: [String] = []
        let ending = try run(paths, model: model, port: controlPort + 8) { event in
            guard case .fileChanged(let path, _) = event else { return }
            played.append(path)
            if !model.shuffle { model.setShuffle(true) }
        }
        #expect(ending == .finished(someFilesFailed: false))
        #expect(played.first == paths[0] && played.sorted() == paths, "\(played)")
        #expect(played != paths, "shuffled, the order is another (1 chance in 5040 that it is not)")
        #expect(changes == played.count + 1, "\(changes) onChange")
    }

    /// At 100 % every sample goes out as it is in the file; at 50 % (gain 0.125) after a 25 ms ramp, each is an
    /// eighth (±1 for rounding).
    @Test func volumeScalesWhatGoesOut() throws {
        defer { Paths.removeScratch(dir) }
        let (paths, files) = try noise([3])
        let packets = try RTPPackets(port: controlPort + 12)
        defer { packets.stop() }
        let model = StreamModel()
        var changes = 0
        model.onChange = { changes += 1 }
        var changedAt: ContinuousClock.Instant?
        let ending = try run(paths, model: model, port: controlPort + 12) { event in
            guard case .status(let status) = event, let time = status.fileTime else { return }
            if changedAt == nil, time.seconds >= 0.8 {
                changedAt = .now
                model.setVolume(percent: 50)
            } else if time.seconds >= 2 {
                model.stop()
            }
        }
        #expect(ending == .stopped(.requested))
        let arrived = packets.all
        let finder = FrameFinder(files)
        try #require(Self.runs(arrived, finder).count >= 1 && finder.place(of: arrived[0].payload)! == (0, 0))
        let sent = arrived.flatMap { samples($0.payload) }
        let file = files[0].samples.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let before = arrived.filter { $0.at < changedAt! }.reduce(0) { $0 + $1.payload.count / 2 }
        let count = min(sent.count, file.count)
        #expect(before > 44_100)
        let unequal = (0..<before).first { sent[$0] != file[$0] }
        #expect(unequal == nil, "before the change, sample \(unequal ?? 0) is not the file's")
        let changed = try #require((0..<count).first { sent[$0] != file[$0] })
        let settled = changed + 2 * 1_200  // the 25 ms ramp (1,103 frames) and a little
        let off = (settled..<count).filter { abs(Double(sent[$0]) - Double(file[$0]) * 0.125) > 1 }
        #expect(off.isEmpty, "\(off.count) samples not an eighth, first at \(off.first ?? 0)")
        #expect(count - settled > 44_100, "too little after the change")
        #expect(model.volumePercent == 50 && changes == 2, "\(changes) onChange (the file, the volume)")
    }
}
