// yt-gst — clocks that several machines share: the system clock published on the network, and the clients that
// follow one (GStreamer's own protocol, NTP or PTP).
internal import CGStreamer
import Glibc

/// A GStreamer clock: what a pipeline's running time counts on, and what it can share with other machines.
///
/// - Note: `@unchecked Sendable`: `raw` is an owned (+1) reference used only through GStreamer's thread-safe clock
///   API. The corresponding C type is `GstClock`.
public final class Clock: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstClock>
    /// Where a network clock asks the time (for `seed(within:)`); nil for other clocks.
    let server: TimeServer?
    /// A network clock's GStreamer client (+1), which asks the server, and what sets `raw` from its answers
    /// (Clock+Fit.swift); nil for other clocks.
    let client: UnsafeMutablePointer<GstClock>?
    let followed: FollowedTime?

    /// Takes an owned reference (sinks a floating one).
    private init(taking raw: UnsafeMutablePointer<GstClock>) {
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(raw))
        self.raw = raw
        server = nil
        client = nil
        followed = nil
    }

    /// A clock of its own set from `client`'s answers (taken, sinks a floating one), which post their statistics to
    /// `pipeline`'s bus.
    private init(following client: UnsafeMutablePointer<GstClock>, server: TimeServer, statisticsTo pipeline: Pipeline?)
    {
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(client))
        let own = UnsafeMutableRawPointer(g_object_new_with_properties(gst_system_clock_get_type(), 0, nil, nil)!)
            .assumingMemoryBound(to: GstClock.self)
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(own))
        _ = gst_object_set_name(CGst_object(own), "followed-clock")
        raw = own
        self.server = server
        self.client = client
        followed = FollowedTime(clock: own, forwardTo: pipeline?.bus)
        followed?.listen(to: client)
    }

    deinit {
        if let client { gst_object_unref(UnsafeMutableRawPointer(client)) }
        gst_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// The machine's monotonic clock (`CLOCK_MONOTONIC`): what a sender publishes.
    ///
    /// The corresponding C function is `gst_system_clock_obtain`.
    public static func system() -> Clock {
        Gst.initialize()
        let clock = gst_system_clock_obtain()!
        return Clock(taking: clock)
    }

    /// A clock that follows the one a `ClockPublisher` serves at `address`:`port` (GStreamer's protocol over UDP).
    ///
    /// Its time is the publisher's from the first answer on, fitted through the fastest answers (`ExchangeFit`);
    /// `waitForSync` tells when that is, and `seed(within:)` gives it the publisher's time at once.
    /// - Parameter pipeline: whose bus gets a `gst-netclock-statistics` element message for every answer (offset,
    ///   round trip, and this clock's calibration), so the session sees them with its other messages.
    /// The corresponding C function is `gst_net_client_clock_new`, whose answers set a `GstSystemClock` of its own.
    public static func following(address: String, port: Int, statisticsTo pipeline: Pipeline? = nil) -> Clock {
        Gst.initialize()
        let clock = Clock(
            following: gst_net_client_clock_new("sender-clock", address, gint(port), 0)!,
            server: TimeServer(address: address, port: port, ntp: false), statisticsTo: pipeline)
        clock.askOften()
        return clock
    }

    /// A clock that follows an NTP server (NTPv4 over UDP, `port` usually 123), fitted as `following`'s is.
    ///
    /// The corresponding C function is `gst_ntp_clock_new`.
    public static func ntp(server: String, port: Int = 123, statisticsTo pipeline: Pipeline? = nil) -> Clock {
        Gst.initialize()
        return Clock(
            following: gst_ntp_clock_new("ntp-clock", server, gint(port), 0)!,
            server: TimeServer(address: server, port: port, ntp: true), statisticsTo: pipeline)
    }

    /// A clock that follows the PTP (IEEE 1588) grandmaster of `domain` on this machine's networks.
    ///
    /// - Returns: nil when PTP cannot start here (it needs `gst-ptp-helper` and ports 319 and 320).
    /// The corresponding C functions are `gst_ptp_init` and `gst_ptp_clock_new`.
    public static func ptp(domain: Int) -> Clock? {
        Gst.initialize()
        guard gst_ptp_is_initialized() != 0 || gst_ptp_init(guint64.max, nil) != 0,
            let clock = gst_ptp_clock_new("ptp-clock", guint(domain))
        else { return nil }
        return Clock(taking: clock)
    }

    /// The clock's time now.
    ///
    /// The corresponding C function is `gst_clock_get_time`.
    public var time: ClockTime { ClockTime(nanoseconds: UInt64(gst_clock_get_time(raw))) }

    /// Whether a network clock has had its first answer (always true for a local clock).
    ///
    /// The corresponding C function is `gst_clock_is_synced`.
    public var isSynced: Bool { followed?.synced.load(ordering: .acquiring) ?? (gst_clock_is_synced(raw) != 0) }

    /// Waits up to `timeout` for a network clock's first answer; true once it has one.
    ///
    /// The corresponding C function is `gst_clock_wait_for_sync` (for PTP; the others are looked at every ms).
    public func waitForSync(timeout: Duration) -> Bool {
        guard followed != nil else { return gst_clock_wait_for_sync(raw, ClockTime(timeout).raw) != 0 }
        let deadline = ContinuousClock.now + timeout
        while !isSynced && ContinuousClock.now < deadline { usleep(1000) }
        return isSynced
    }
}

/// Serves a clock's time to the machines that follow it (`Clock.following(address:port:)`), for as long as it lives.
///
/// The corresponding C type is `GstNetTimeProvider`.
public final class ClockPublisher: @unchecked Sendable {
    private let raw: UnsafeMutablePointer<GstNetTimeProvider>
    /// The clock served; kept alive with the provider.
    public let clock: Clock

    /// Starts serving `clock` on UDP `port` of every local address (nil: of `address` only).
    ///
    /// - Throws: `.portUnavailable` naming the port when it cannot be bound (in use, or not allowed).
    /// The corresponding C function is `gst_net_time_provider_new`.
    public init(_ clock: Clock, port: Int, address: String? = nil) throws(GstError) {
        guard let provider = gst_net_time_provider_new(clock.raw, address, gint(port)) else {
            let message = "cannot publish the clock on UDP port \(port) (in use, or not allowed)"
            throw GstError(kind: .portUnavailable, message: message)
        }
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(provider))
        raw = provider
        self.clock = clock
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(raw)) }
}

extension Pipeline {
    /// Makes the pipeline count its running time on `clock` (instead of choosing one when it starts), from
    /// `baseTime` on: a buffer with running time t renders when `clock` reads baseTime + t (plus the latency).
    ///
    /// Several pipelines on several machines that share a clock and a base time render the same running time at
    /// the same instant. Call before the pipeline goes to PLAYING.
    /// The corresponding C functions are `gst_pipeline_use_clock`, `gst_element_set_start_time` (NONE: the base
    /// time stays as set) and `gst_element_set_base_time`.
    public func run(on clock: Clock, baseTime: ClockTime) {
        gst_pipeline_use_clock(pipeline, clock.raw)
        gst_element_set_start_time(raw, CGst_clock_time_none())
        gst_element_set_base_time(raw, baseTime.raw)
    }

    /// Fixes the pipeline's latency (what every sink adds to running times) instead of the one its elements report,
    /// so that pipelines on several machines render with the same delay.
    ///
    /// The corresponding C function is `gst_pipeline_set_latency`.
    public func setLatency(_ latency: ClockTime) { gst_pipeline_set_latency(pipeline, latency.raw) }

    private var pipeline: UnsafeMutablePointer<GstPipeline> {
        UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstPipeline.self)
    }
}
