// yt-gst — StreamSession and BroadcastSession driven through their Control, without the command line: pause,
// resume, next, previous and stop on real pipelines (RTP to a socket of the test's, HLS to a scratch directory).
import AppSrcFeeder
import Foundation
import Glibc
import GstPlayer
import Synchronization
import TestSupport
import Testing

@testable import Streaming
@testable import yt_gst

/// RTP packets arriving at a loopback UDP port: when each came, its RTP timestamp and its payload.
final class RTPPackets: Sendable {
    typealias Arrival = (at: ContinuousClock.Instant, timestamp: UInt32, payload: [UInt8])
    private let socket: Int32
    private let arrivals = Mutex<[Arrival]>([])
    private let running = Atomic<Bool>(true)

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread { [self] in receive() }.start()
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while running.load(ordering: .relaxed) {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count >= 12 else { continue }
            let timestamp = buffer[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let payload = Array(buffer[(12 + 4 * Int(buffer[0] & 0x0F))..<count])
            arrivals.withLock { $0.append((.now, timestamp, payload)) }
        }
        close(socket)
    }

    func stop() { running.store(false, ordering: .relaxed) }

    var all: [Arrival] { arrivals.withLock { $0 } }
}

/// How many 48 kHz samples an Opus packet decodes to, from its table of contents (RFC 6716, 3.1).
private func opusSamples(_ packet: [UInt8]) -> Int64 {
    guard let toc = packet.first else { return 0 }
    let configuration = Int(toc >> 3)
    let frame: Int64 =
        configuration < 12
        ? [480, 960, 1920, 2880][configuration % 4]
        : configuration < 16 ? [480, 960][configuration % 2] : [120, 240, 480, 960][configuration % 4]
    switch toc & 3 {
    case 0: return frame
    case 1, 2: return 2 * frame
    default: return packet.count > 1 ? frame * Int64(packet[1] & 0x3F) : 0
    }
}

/// A scratch directory with tone files of `seconds` each, named a.wav, b.wav, ...
private func tones(_ count: Int, seconds: Double, in directory: URL) throws -> [String] {
    try (0..<count).map { index in
        let name = String(UnicodeScalar(UInt8(97 + index))) + ".wav"
        return try SyntheticWAV.tone(frequency: 440 + 110 * Double(index), frames: Int(seconds * 44_100))
            .write(to: directory.appendingPathComponent(name))
    }
}

/// Ports of their own per process, so that runs side by side do not meet (RTP, RTCP and the clock: 3 ports a
/// stream; each test its own 3, as a closed socket may still hold its port while the next test binds it).
private let basePort = 40_000 + Int(getpid() % 2_000) * 12

@Suite(.serialized) struct StreamSessionTests {
    /// A stream of `files` to the test's RTP port, its status every 50 ms; `observe` sees each event with the
    /// session's control.
    static func session(
        _ files: [String], port: Int, codec: NetworkCodec? = nil,
        observe: @escaping (StreamSession.Event, StreamSession.Control) -> Void
    ) throws -> StreamSession {
        var configuration = StreamSession.Configuration(
            files: files, destinations: [try StreamURL(parsing: "rtp://127.0.0.1:\(port)")])
        configuration.codec = codec
        configuration.statusInterval = .milliseconds(50)
        var control: StreamSession.Control?
        let session = StreamSession(configuration) { event in if let control { observe(event, control) } }
        control = session.control
        return session
    }

    /// A pause stops the packets; resuming sends on from the same sample, its RTP timestamps a pause later (so
    /// synchronised receivers stay in step); a stop ends the stream as asked.
    @Test func pauseHoldsThePacketsAndResumeKeepsTheClock() throws {
        let dir = try Paths.makeScratch("stream-pause")
        defer { Paths.removeScratch(dir) }
        let files = try tones(1, seconds: 6, in: dir)
        let packets = try RTPPackets(port: basePort)
        defer { packets.stop() }
        var pausedAt: ContinuousClock.Instant?
        var resumedAt: ContinuousClock.Instant?
        var heldPositions: [ClockTime] = []
        let session = try Self.session(files, port: basePort) { event, control in
            guard case .status(let status) = event else { return }
            if pausedAt == nil, status.position >= ClockTime(seconds: 0.6) {
                pausedAt = .now
                control.pause()
            } else if let since = pausedAt, resumedAt == nil, status.state == .paused {
                heldPositions.append(status.position)
                if ContinuousClock.now - since >= .milliseconds(800) {
                    resumedAt = .now
                    control.resume()
                }
            } else if resumedAt != nil, status.state == .sending, status.position >= ClockTime(seconds: 1.2) {
                control.stop()
            }
        }
        let started = ContinuousClock.now
        let ending = try session.run()
        #expect(ending == .stopped(.requested))
        #expect(ContinuousClock.now - started < .seconds(8))
        let (paused, resumed) = try (#require(pausedAt), #require(resumedAt))
        let arrived = packets.all
        let during = arrived.filter { $0.at > paused + .milliseconds(200) && $0.at < resumed }
        #expect(during.isEmpty, "\(during.count) packets while paused")
        #expect(arrived.contains { $0.at > resumed + .milliseconds(100) }, "nothing after resuming")
        #expect(heldPositions.count >= 3 && heldPositions.max()!.seconds - heldPositions.min()!.seconds < 0.05)
        // The largest step between two packets' timestamps is the pause (0.8 s and a bit), not 0.
        let steps = zip(arrived, arrived.dropFirst()).map { Double($1.timestamp &- $0.timestamp) / 44_100 }
        let jump = steps.max() ?? 0
        #expect(jump > 0.6 && jump < 1.5, "largest timestamp step \(jump) s")
        #expect(steps.allSatisfy { $0 < 100 }, "timestamps stepped back")
    }

    /// next and previous move in the list at once (each file said as it starts), the RTP timestamps never step
    /// back, and next past the last file ends the stream cleanly.
    @Test func nextAndPreviousJumpInTheList() throws {
        let dir = try Paths.makeScratch("stream-jump")
        defer { Paths.removeScratch(dir) }
        let files = try tones(3, seconds: 4, in: dir)
        let packets = try RTPPackets(port: basePort + 4)
        defer { packets.stop() }
        // After each file change, 0.4 s later: next, previous, next, next, next (past the end).
        let script: [StreamSession.Command] = [.next, .previous, .next, .next, .next]
        var step = 0
        var changedAt: ContinuousClock.Instant?
        var started: [Int] = []
        let session = try Self.session(files, port: basePort + 4) { event, control in
            switch event {
            case .fileChanged(_, let position):
                started.append(position)
                changedAt = .now
            case .status(let status) where status.state == .sending:
                guard let at = changedAt, ContinuousClock.now - at > .milliseconds(400), step < script.count else {
                    return
                }
                changedAt = nil
                control.send(script[step])
                step += 1
            default:
                break
            }
        }
        let begun = ContinuousClock.now
        let ending = try session.run()
        #expect(ending == .finished(someFilesFailed: false))
        #expect(started == [0, 1, 0, 1, 2], "\(started)")
        #expect(ContinuousClock.now - begun < .seconds(9), "the whole list would take 12 s")
        let arrived = packets.all
        #expect(arrived.count > 50)
        let steps = zip(arrived, arrived.dropFirst()).map { Int64(Int32(bitPattern: $1.timestamp &- $0.timestamp)) }
        #expect(steps.allSatisfy { $0 >= 0 }, "timestamps stepped back")
    }

    /// Opus packets are stamped as a receiver decodes them: each one's RTP timestamp is where the one before it
    /// ends, from the first packet on and after a jump. (GStreamer's stamps assume a decoder that clips Opus's
    /// 6.5 ms delay off the first packet, which RTP cannot tell: the second packet began 6.5 ms inside the first, and
    /// receivers heard the file's first 13.5 ms garbled.)
    @Test func opusPacketsFollowEachOtherFromTheFirst() throws {
        let dir = try Paths.makeScratch("stream-opus")
        defer { Paths.removeScratch(dir) }
        let packets = try RTPPackets(port: basePort + 8)
        defer { packets.stop() }
        var jumped = false
        let session = try Self.session(tones(2, seconds: 1.5, in: dir), port: basePort + 8, codec: .opus) {
            event, control in
            guard !jumped, case .status(let status) = event, status.position >= ClockTime(seconds: 0.5) else { return }
            jumped = true
            control.send(.next)
        }
        #expect(try session.run() == .finished(someFilesFailed: false))
        #expect(jumped)
        let arrived = packets.all
        #expect(arrived.count > 50)
        let steps = zip(arrived, arrived.dropFirst()).map { previous, next in
            let step = Int64(Int32(bitPattern: next.timestamp &- previous.timestamp))
            return (step: step, samples: opusSamples(previous.payload))
        }
        let first = steps.prefix(10).map(\.step)
        #expect(first == Array(repeating: 960, count: first.count), "the first packets' timestamp steps: \(first)")
        let inside = steps.filter { $0.step < $0.samples }
        #expect(inside.isEmpty, "packets that begin inside the one before: \(inside)")
    }

    /// A stop while the clock of an NTP server is awaited ends the wait at once (it would last 5 s).
    @Test func stopEndsTheWaitForTheClock() throws {
        let dir = try Paths.makeScratch("stream-clock")
        defer { Paths.removeScratch(dir) }
        var configuration = StreamSession.Configuration(
            files: try tones(1, seconds: 1, in: dir),
            destinations: [try StreamURL(parsing: "rtp://127.0.0.1:\(basePort)")])
        configuration.clock = .ntp(host: "127.0.0.1", port: 9)  // discard: never answers
        let session = StreamSession(configuration) { _ in }
        let control = session.control
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { control.stop(.interrupted(SIGINT)) }
        let started = ContinuousClock.now
        #expect(try session.run() == .stopped(.interrupted(SIGINT)))
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}

@Suite(.serialized) struct BroadcastSessionTests {
    /// An HLS broadcast paused holds its place while segments of silence keep coming, resumes from the place, moves
    /// to the next and previous file with their titles, and stops when told.
    @Test func pauseNextPreviousAndStopOnHLS() throws {
        let dir = try Paths.makeScratch("broadcast-session")
        defer { Paths.removeScratch(dir) }
        let hls = dir.appendingPathComponent("hls")
        try FileManager.default.createDirectory(at: hls, withIntermediateDirectories: true)
        let files = try tones(2, seconds: 5, in: dir)
        var configuration = BroadcastSession.Configuration(
            files: files,
            plan: BroadcastPlan(
                targets: [.hls(directory: hls.path, playlist: "playlist.m3u8")], codec: .mp3, bitrate: 64,
                segmentSeconds: 1, playlistLength: 5))
        configuration.statusInterval = .milliseconds(50)
        var titles: [String] = []
        var heldTimes: [ClockTime] = []
        var segmentsWhilePaused = (first: 0, last: 0)
        var phase = 0
        var phaseSince = ContinuousClock.now
        var resumedAt: ClockTime?
        var resumedAfter = Duration.zero
        var afterResuming: [String] = []  // what the statuses said after resuming, for a failure's message
        func segments() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: hls.path))?.count ?? 0 }
        var session: BroadcastSession!
        session = BroadcastSession(configuration) { event in
            let control = session.control
            switch event {
            case .titleChanged(let title): titles.append(title)
            case .status(let status):
                let elapsed = ContinuousClock.now - phaseSince
                func advance(_ command: BroadcastSession.Command) {
                    control.send(command)
                    phase += 1
                    phaseSince = .now
                }
                switch phase {
                case 0 where status.fileTime >= ClockTime(seconds: 0.8):
                    advance(.pause)
                    segmentsWhilePaused.first = segments()
                case 1 where elapsed > .milliseconds(200):
                    if case .paused = status.state { heldTimes.append(status.fileTime) }
                    if elapsed > .milliseconds(2_500) {
                        segmentsWhilePaused.last = segments()
                        advance(.resume)
                    }
                // The first position past the held one, at least 0.6 s after resuming (the output starts again
                // after its latency).
                case 2:
                    if afterResuming.count < 40 { afterResuming.append("\(elapsed): \(status.fileTime)") }
                    if elapsed > .milliseconds(600) && status.fileTime > (heldTimes.first ?? .zero) {
                        resumedAt = status.fileTime
                        resumedAfter = elapsed
                        advance(.next)
                    }
                case 3 where titles.count == 2 && elapsed > .milliseconds(400): advance(.previous)
                case 4 where titles.count == 3 && elapsed > .milliseconds(400): advance(.stop(.requested))
                default: break
                }
            default:
                break
            }
        }
        let started = ContinuousClock.now
        let ending = try session.run()
        #expect(ending == .stopped(.requested))
        #expect(ContinuousClock.now - started < .seconds(12))
        #expect(titles == ["a.wav", "b.wav", "a.wav"], "\(titles)")
        let held = try #require(heldTimes.first)
        #expect(heldTimes.count >= 10 && heldTimes.allSatisfy { $0 == held }, "\(heldTimes)")
        // Resumed from the held place: once it moves again, the file is at most as far past the held place as time
        // has passed since resuming (not the 2.5 s of the pause further, nor back at its start).
        let resumed = try #require(resumedAt).seconds - held.seconds
        let since = Double(resumedAfter.components.seconds) + Double(resumedAfter.components.attoseconds) / 1e18
        #expect(
            resumed > 0 && resumed < since + 0.3,
            "\(resumed) s after the held place \(held), \(since) s after resuming; statuses: \(afterResuming)")
        #expect(segmentsWhilePaused.last > segmentsWhilePaused.first, "no segments while paused")
        #expect(FileManager.default.fileExists(atPath: hls.appendingPathComponent("playlist.m3u8").path))
    }
}
