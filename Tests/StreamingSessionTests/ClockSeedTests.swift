// yt-gst — a receiver's network clock is synced within milliseconds even when round trips vary (a busy machine).
import Foundation
import Glibc
import Synchronization
import Testing

@testable import GstPlayer
@testable import Streaming

@Suite(.serialized) struct ClockSeedTests {
    /// The sender's clock served on loopback through a relay that holds every other answer back 6 ms (a round trip
    /// 30-60 times the others, as a busy machine makes them). GStreamer's client alone rejects such answers and
    /// asks again only 250 ms later, needing 4 accepted ones: synced after 0.4-1 s. Seeded from its best exchange
    /// it is synced at once (bound 150 ms for a loaded machine), and on the sender's time (within 2 ms).
    @Test func aFollowingClockIsSyncedAtOnceWhenRoundTripsVary() throws {
        for attempt in 0..<3 {
            let (took, distance) = try syncThroughRelay(port: 41_200 + 10 * attempt + Int(getpid() % 7))
            #expect(took < .milliseconds(150), "synced after \(took)")
            #expect(abs(distance) < 2_000_000, "\(distance) ns from the sender's clock")
        }
    }

    /// The same with the first two answers lost (a lossy Wi-Fi path; GStreamer's client and the seed each ask at
    /// once): the seed asks again after `answerWait` instead of waiting out its burst, so the clock is still synced
    /// at once. (Before, a lost first answer left the seed empty, and GStreamer's client took 0.4-1 s here and
    /// missed the receiver's 3 s altogether on a path with 0-5 ms of jitter: the room played unsynchronised.)
    @Test func aLostAnswerCostsTheSeedOneWaitNotItsBurst() throws {
        let (took, _) = try syncThroughRelay(port: 41_260 + Int(getpid() % 7), droppingFirst: 2)
        #expect(took < .milliseconds(150), "synced after \(took)")
    }

    /// A sender's thread that wakes for a request after a quiet spell answers it late (measured in the multi-room
    /// lab: GStreamer's client, asking every 100 ms, put the sender's time 25-35 µs late), and only a burst's
    /// exchanges, each request right after the answer before, have legs that take as long. Here the relay holds a
    /// request that follows a quiet 5 ms back 300 µs: 13.5 s on, after the start-up bursts have left the fit's 10 s,
    /// the clock is still within 50 µs of the sender's, as the bursts that go on every second keep it (with the
    /// start-up bursts alone it was 264 µs late).
    @Test func aFollowingClockStaysOnTheSendersTimeWhenRequestsWaitForItsThread() throws {
        let port = 41_280 + Int(getpid() % 7)
        let publisher = try ClockPublisher(Clock.system(), port: port, address: "127.0.0.1")
        let relay = try #require(
            UDPRelay(
                listenPort: port + 1, target: port, holdingRequestsAfterQuiet: .microseconds(300), for: .seconds(20)))
        defer { relay.stop() }
        let clock = Clock.following(address: "127.0.0.1", port: port + 1)
        #expect(clock.waitForSync(within: .seconds(3), stoppingWhen: { false }) == .answered)
        Thread.sleep(forTimeInterval: 13.5)
        // The median of a few readings: a reading pair split by a preemption is off by as long.
        var distances: [Int64] = []
        for _ in 0..<9 {
            distances.append(Int64(clock.time.nanoseconds) - Int64(publisher.clock.time.nanoseconds))
            Thread.sleep(forTimeInterval: 0.01)
        }
        let distance = distances.sorted()[distances.count / 2]
        #expect(abs(distance) < 50_000, "the clock is \(distance / 1000) µs from the sender's")
    }

    /// Follows a sender's clock (served on `port`) through a relay on `port` + 1 that holds every other answer
    /// back 6 ms and drops the first `dropped`: how long it took to sync, and its distance to the sender's (ns).
    private func syncThroughRelay(
        port: Int, droppingFirst dropped: Int = 0
    ) throws -> (
        took: Duration, distance: Int64
    ) {
        let publisher = try ClockPublisher(Clock.system(), port: port, address: "127.0.0.1")
        let relay = try #require(
            UDPRelay(listenPort: port + 1, target: port, holdEveryOther: .milliseconds(6), droppingFirst: dropped))
        defer { relay.stop() }
        let started = ContinuousClock.now
        let clock = Clock.following(address: "127.0.0.1", port: port + 1)
        #expect(clock.waitForSync(within: .seconds(3), stoppingWhen: { false }) == .answered)
        let took = ContinuousClock.now - started
        return (took, Int64(clock.time.nanoseconds) - Int64(publisher.clock.time.nanoseconds))
    }

    /// An NTP server's answer is read as GStreamer's NTP clock counts (ns since 1900) and matched to its request.
    @Test func anNTPAnswerIsReadAsGStreamerCountsIt() {
        let sent: UInt64 = 0x0123_4567_89AB_CDEF
        let request = TimeExchange.request(ntp: true, sent: sent)
        #expect(request.count == 48 && request[0] == 0x23 && Array(request[40...]) == bytes(sent))
        // Received at 3900000000.5 s, sent 0.25 s later (32.32 fixed point).
        var answer = [UInt8](repeating: 0, count: 48)
        answer[0] = 0x24
        answer.replaceSubrange(24..<32, with: bytes(sent))
        answer.replaceSubrange(32..<40, with: bytes(3_900_000_000 << 32 | 1 << 31))
        answer.replaceSubrange(40..<48, with: bytes(3_900_000_000 << 32 | 3 << 30))
        let exchange = TimeExchange(answer: answer, ntp: true, sent: sent, received: sent + 1_000_000_000)
        #expect(exchange?.serverReceived == 3_900_000_000_500_000_000)
        #expect(exchange?.serverSent == 3_900_000_000_750_000_000)
        #expect(exchange?.roundTrip == 750_000_000)
        #expect(TimeExchange(answer: answer, ntp: true, sent: sent + 1, received: sent + 10) == nil)
    }

    private func bytes(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xff) } }
}

/// Forwards UDP datagrams from `listenPort` to `target` on loopback and the answers back, holding every other
/// answer back by `hold`, dropping the first `dropped` and holding a request that follows 5 ms without one back by
/// `coldHold`; runs on its own thread until `stop()` (and at most `lifetime`).
final class UDPRelay: @unchecked Sendable {
    private let socket: Int32
    private let stopped = StopFlag()
    private let thread: Thread

    init?(
        listenPort: Int, target: Int, holdEveryOther hold: Duration = .zero, droppingFirst dropped: Int = 0,
        holdingRequestsAfterQuiet coldHold: Duration = .zero, for lifetime: Duration = .seconds(10)
    ) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0, UDPRelay.bind(socket, port: 0) else { return nil }
        let listener = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard listener >= 0, UDPRelay.bind(listener, port: listenPort) else { return nil }
        let (upstream, stopped) = (socket, stopped)
        thread = Thread {
            defer { close(listener) }
            stopped.running.store(true, ordering: .relaxed)
            var server = UDPRelay.loopback(port: target)
            // Each request's answer goes back to its sender (GStreamer's clock and the seed both ask), found by the
            // request's first 8 bytes (the sender's time, which the server echoes there).
            var clients: [[UInt8]: sockaddr_in] = [:]
            var answers = 0
            var lastRequest = ContinuousClock.now
            let end = ContinuousClock.now + lifetime
            var bytes = [UInt8](repeating: 0, count: 512)
            while !stopped.value.load(ordering: .relaxed) && ContinuousClock.now < end {
                var fds = [
                    pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: upstream, events: Int16(POLLIN), revents: 0),
                ]
                guard poll(&fds, 2, 20) > 0 else { continue }
                if fds[0].revents != 0 {
                    var client = sockaddr_in(), length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let count = withUnsafeMutablePointer(to: &client) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(listener, &bytes, bytes.count, 0, $0, &length)
                        }
                    }
                    if count >= 16 {
                        if ContinuousClock.now - lastRequest > .milliseconds(5) { UDPRelay.sleep(coldHold) }
                        lastRequest = .now
                        clients[Array(bytes[..<8])] = client
                        _ = UDPRelay.send(upstream, Array(bytes[..<count]), to: &server)
                    }
                }
                if fds[1].revents != 0 {
                    let count = recv(upstream, &bytes, bytes.count, 0)
                    answers += 1
                    if answers <= dropped { continue }
                    if answers % 2 == 0 { UDPRelay.sleep(hold) }
                    if count >= 16, var client = clients.removeValue(forKey: Array(bytes[..<8])) {
                        _ = UDPRelay.send(listener, Array(bytes[..<count]), to: &client)
                    }
                }
            }
        }
        thread.start()
        while !stopped.running.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.001) }
    }

    func stop() {
        stopped.value.store(true, ordering: .relaxed)
        while !thread.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        close(socket)
    }

    private static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        Thread.sleep(forTimeInterval: Double(duration.components.attoseconds) / 1e18)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func bind(_ socket: Int32, port: Int) -> Bool {
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func send(_ socket: Int32, _ bytes: [UInt8], to address: inout sockaddr_in) -> Int {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(socket, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}

private final class StopFlag: Sendable {
    let value = Atomic(false)
    let running = Atomic(false)
}
