// yt-gst — a network clock set from a short burst of its protocol's own exchanges, at once.
internal import CGStreamer
import Glibc

/// Where a network clock asks the time, and in which protocol (see `Clock.seed(within:)`).
struct TimeServer: Sendable {
    var address: String
    var port: Int
    /// NTPv4 (`gst_ntp_clock_new`); otherwise GStreamer's own 16-byte packets (`GstNetTimeProvider`).
    var ntp: Bool
}

/// One exchange with a time server, in ns: sent and received on the follower's internal clock, and the server's
/// time at its receipt and reply.
struct TimeExchange: Equatable, Sendable {
    var sent: UInt64
    var serverReceived: UInt64
    var serverSent: UInt64
    var received: UInt64

    /// The round trip, the server's own time left out.
    var roundTrip: UInt64 { (received &- sent) &- (serverSent &- serverReceived) }

    /// The request packet of `server`'s protocol, stamped with `sent` (the server echoes it back).
    static func request(ntp: Bool, sent: UInt64) -> [UInt8] {
        ntp ? [0x23] + [UInt8](repeating: 0, count: 39) + bigEndian(sent) : bigEndian(sent) + bigEndian(0)
    }

    /// The exchange an answer closes, or nil when it is not the answer to the request stamped `sent`.
    init?(answer bytes: [UInt8], ntp: Bool, sent: UInt64, received: UInt64) {
        func word(_ at: Int) -> UInt64 { bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        /// NTP's 32.32 fixed point (s since 1900) in ns, as GStreamer's NTP clock counts.
        func ntpTime(_ at: Int) -> UInt64 {
            let value = word(at)
            return (value >> 32) * 1_000_000_000 + ((value & 0xffff_ffff) * 1_000_000_000) >> 32
        }
        if ntp {
            guard bytes.count >= 48, bytes[0] & 0x7 == 4, word(24) == sent else { return nil }
            (serverReceived, serverSent) = (ntpTime(32), ntpTime(40))
        } else {
            guard bytes.count >= 16, word(0) == sent else { return nil }
            (serverReceived, serverSent) = (word(8), word(8))
        }
        guard received >= sent, serverSent >= serverReceived else { return nil }
        (self.sent, self.received) = (sent, received)
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xff) }
    }
}

extension Clock {
    /// How many exchanges a seed makes at most.
    static let seedExchanges = 8

    /// Sets a network clock (`following`, `ntp`) from a short burst of its own protocol's exchanges (the fit's
    /// first points: the offset of the fastest, at the nominal rate) and marks it synced, unless it has had an
    /// answer already; for GStreamer's protocol, more bursts follow for the rate (`burstDelays`) and go on for the
    /// offset (`burstInterval`).
    ///
    /// Why: GStreamer's client needs 4 answers before it is synced and waits 250 ms after any answer whose round
    /// trip is more than twice its average, which on a busy machine is often (250 ms to 2 s to sync): receivers
    /// then start late and lose the start of the stream. The client's answers are fitted with these from then on.
    /// - Returns: whether the clock is synced now; false when the server did not answer within `limit`.
    public func seed(within limit: Duration) -> Bool {
        guard let server, let followed else { return isSynced }
        guard !isSynced else { return true }
        guard Clock.burst(with: server, on: raw, into: followed, within: limit) else { return isSynced }
        if !server.ntp { burstAgain() }
        return true
    }

    /// When more bursts follow the seed's (µs after it), and how long each may take. Why: the fit's rate needs
    /// exchanges that span a time, and the client's answers, each tens of µs off, give one within a few ppm only
    /// after seconds; two bursts 0.3 s apart give it within 1 ppm (`ExchangeFit.quickRateSpan`). Until then a
    /// follower whose clock ran 200 ppm fast played at the nominal rate: its room drifted 100-650 µs from the others
    /// in its first 2-4 s (measured in the multi-room lab: beyond 200 µs in 5 runs of 9). (Not for NTP: see
    /// `askInterval`.)
    static let burstDelays: [UInt32] = [300_000, 1_000_000, 3_000_000]
    static let burstLimit = Duration.milliseconds(100)

    /// How often (µs) a burst follows the last of `burstDelays`, for as long as the clock lives. Why: a burst's
    /// exchanges are the fastest the fit has, and the only ones whose two legs take as long (the server's thread is
    /// awake for them); the client's, the request waiting for that thread to wake, put the sender's time 25-35 µs
    /// late. With bursts only at the start, a receiver's clock was within 1 µs of the sender's until they left the
    /// fit's window (10 s) and 25-35 µs off from then on (measured in the multi-room lab, where every namespace has
    /// the same monotonic clock): a room that joined late played that much apart from the others for its first 10
    /// s, and rooms whose senders' threads wake differently would for good. Bursts every second keep them most of
    /// the fit's fastest exchanges.
    static let burstInterval: UInt32 = 1_000_000

    /// The wait (µs) before the `index`th burst after the seed's.
    private static func wait(beforeBurst index: Int) -> UInt32 {
        guard index < burstDelays.count else { return burstInterval }
        return burstDelays[index] - (index > 0 ? burstDelays[index - 1] : 0)
    }

    /// Makes the bursts of `burstDelays`, then every `burstInterval`, on a thread of its own, while this clock lives.
    /// (A thread that sleeps, not a dispatch timer: under libfaketime, as the multi-room lab runs a receiver with
    /// fast clocks, those never fired.)
    private func burstAgain() {
        let context = Unmanaged.passRetained(WeakClock(self)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                let weak = Unmanaged<WeakClock>.fromOpaque(context!).takeRetainedValue()
                for index in 0... {
                    usleep(Clock.wait(beforeBurst: index))
                    guard let clock = weak.clock, let server = clock.server, let followed = clock.followed else {
                        break
                    }
                    _ = Clock.burst(with: server, on: clock.raw, into: followed, within: Clock.burstLimit)
                }
                return nil
            }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<WeakClock>.fromOpaque(context).release()
        }
    }

    /// A clock that a thread may use without keeping it alive.
    private final class WeakClock: @unchecked Sendable {
        weak var clock: Clock?
        init(_ clock: Clock) { self.clock = clock }
    }

    /// Adds a burst of exchanges with `server` (timed on `clock`) to `followed`; whether any was answered.
    private static func burst(
        with server: TimeServer, on clock: UnsafeMutablePointer<GstClock>, into followed: FollowedTime,
        within limit: Duration
    ) -> Bool {
        let exchanges = Clock.exchanges(with: server, on: clock, within: limit)
        guard !exchanges.isEmpty else { return false }
        followed.add(
            exchanges.map {
                ExchangeFit.Exchange(
                    local: $0.sent / 2 + $0.received / 2, remote: $0.serverReceived / 2 + $0.serverSent / 2,
                    roundTrip: $0.roundTrip, inBurst: true)
            })
        return true
    }

    /// How often a clock that follows a publisher asks its time once synced (ns): every 100 ms, so that the fit
    /// has 100 answers in its window to choose the fastest from (GStreamer's: once a second). (Not for NTP: public
    /// servers refuse clients that ask more than every few seconds.)
    static let askInterval: UInt64 = 100_000_000

    /// Sets `askInterval` on the client. The corresponding property is GstClock's "timeout" on its
    /// "internal-clock".
    func askOften() {
        guard let client, let asking = Clock.internalClock(of: client) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(asking)) }
        gst_util_set_object_arg(CGst_gobject(asking), "timeout", String(Clock.askInterval))
    }

    /// A GStreamer network client's internal clock (+1), the one that talks to the server.
    private static func internalClock(of client: UnsafeMutablePointer<GstClock>) -> UnsafeMutablePointer<GstClock>? {
        var value = GValue()
        g_value_init(&value, gst_clock_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(client), "internal-clock", &value)
        guard let clock = g_value_dup_object(&value) else { return nil }
        return clock.assumingMemoryBound(to: GstClock.self)
    }

    /// How long one exchange waits for its answer before the next request goes out: a lost packet costs this much
    /// of the burst, not all of it (on a lossy path the first request's loss left the seed empty, and GStreamer's
    /// client, on a jittery one, did not sync within the receiver's 3 s).
    static let answerWait = Duration.milliseconds(40)

    /// Up to `seedExchanges` exchanges with `server`, one after the other, within `limit`; timed on `clock`'s
    /// internal clock (the machine's monotonic clock, as the client's).
    private static func exchanges(
        with server: TimeServer, on clock: UnsafeMutablePointer<GstClock>, within limit: Duration
    ) -> [TimeExchange] {
        guard let socket = connectedSocket(to: server) else { return [] }
        defer { close(socket) }
        let deadline = ContinuousClock.now + limit
        var done: [TimeExchange] = []
        while done.count < seedExchanges, ContinuousClock.now < deadline {
            let sent = UInt64(gst_clock_get_internal_time(clock))
            let request = TimeExchange.request(ntp: server.ntp, sent: sent)
            guard send(socket, request, request.count, 0) == request.count else { return done }
            // Until its answer or `answerWait`; an answer to an earlier request is not this one's.
            let wait = min(deadline, .now + answerWait)
            while let answer = receive(on: socket, until: wait) {
                let received = UInt64(gst_clock_get_internal_time(clock))
                if let exchange = TimeExchange(answer: answer, ntp: server.ntp, sent: sent, received: received) {
                    done.append(exchange)
                    break
                }
            }
        }
        return done
    }

    /// A UDP socket connected to `server` (its first address), nil when it cannot be resolved or reached.
    private static func connectedSocket(to server: TimeServer) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(server.address, String(server.port), &hints, &found) == 0, let info = found else {
            return nil
        }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard socket >= 0 else { return nil }
        guard connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            close(socket)
            return nil
        }
        return socket
    }

    /// The next datagram on `socket`, nil at `deadline` or on an error.
    private static func receive(on socket: Int32, until deadline: ContinuousClock.Instant) -> [UInt8]? {
        let left = deadline - .now
        guard left > .zero else { return nil }
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 1000))
        guard poll(&poller, 1, milliseconds) > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = recv(socket, &bytes, bytes.count, 0)
        return count > 0 ? Array(bytes[..<count]) : nil
    }
}
