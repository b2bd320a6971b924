// yt-gst — receivers in several rooms play as one: measured in the multi-room lab (two receivers in network
// namespaces, each on one channel of a PulseAudio null sink, cross-correlated). The bounds here prove that the
// receivers follow the sender's clock (an unsynchronised receiver sits a random ±2.5 ms off and a fast clock drifts
// 200 µs/s); the goals in µs are the benchmark's (`make bench`, scripts/bench.py --multiroom).
import Foundation
import TestSupport
import Testing

@Suite(.serialized, .enabled(if: MultiRoomLab.available, "needs root, iproute2, PulseAudio and python3-numpy"))
struct MultiRoomSyncTests {
    static let sender = "\(Paths.binary) stream {noise} --to rtp://{group}:{port} --iface eth0 -q"
    static func receiver(_ options: String = "") -> String {
        "\(Paths.binary) receive rtp://@{group}:{port} --iface eth0 --sink 'pulsesink device={sink}' \(options)"
    }

    init() { NetworkLab.removeStale() }

    /// Two receivers, the second told to play 10 ms later: after the start-up the second is 10 ms behind the first
    /// (to within 1.5 ms), stays there (no drift), with no dropout over 60 ms once in step, and the sound comes within the shared
    /// latency of the packets (80 ms by default). Each says it was in sync.
    @Test func receiversPlayInStepAndADelayIsKept() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver("--delay-ms 10")])
        run.seconds = 20
        run.expectMicroseconds = 10_000
        _ = try MultiRoomLab.run(run, titled: "multi-room, normal and --delay-ms 10") { report in
            let steady = report.steady
            // Dropouts: issue 22 wants none; the receivers still have some of tens of ms, mostly while the output
            // is first aligned, but also once in step (CI runs: 0, 0 and 40 ms in the steady stretch), so here
            // they are only bounded; the bench measures them.
            return [
                LabBound("≥ 20 steady windows", (steady?.windows ?? 0) >= 20),
                LabBound("median 10 ms ± 1.5 ms", abs((steady?.medianUs ?? 0) - 10_000) <= 1_500),
                LabBound("range ≤ 1.5 ms", (steady?.rangeUs ?? .infinity) <= 1_500),
                LabBound("drift ≤ 30 µs/s", abs(steady?.driftUsPerS ?? .infinity) <= 30),
                LabBound("steady dropouts ≤ 60 ms", (steady?.longestGapMs ?? .infinity) <= 60),
                LabBound("dropouts ≤ 100 ms", report.longestGapMs.max <= 100),
            ]
                + [report.steadyLatencyMs?.left, report.steadyLatencyMs?.right].map {
                    LabBound("latency 20-120 ms", ($0 ?? 0) > 20 && ($0 ?? .infinity) < 120)
                } + LabBound.receiversInSync(report)
        }
    }

    /// Receivers listening when the stream starts play it from its first sample: they keep the packets that come
    /// while they learn the sender's clock (seeded from a burst of queries in a few ms) and place them by their RTP
    /// time. (Before: the first 150-170 ms were cut on every receiver.) The sound begins within 2 ms
    /// of the file's start on both (goal), 10 ms here for a loaded machine, and within 600 ms of the start. And they
    /// are in step from the first window on: each output moves by its start-up gap as soon as its device plays.
    /// (Before: the rooms played 0.6–7 ms apart for their first 1.7 s.) Nor do they skip within their first second:
    /// each output's clock is calibrated on its stream's position (measured: 0-0.4 ms; before, when pulsesink's clock
    /// started from libpulse's time for a stream that had not played yet, every room skipped 38-48 ms some 175 ms in).
    @Test func receiversListeningAtTheStartHearItFromTheFirstSample() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 6
        run.warmupSeconds = 3
        _ = try MultiRoomLab.run(run, titled: "multi-room, the start") { report in
            [report.firstSampleMs?.left, report.firstSampleMs?.right].map {
                LabBound("first sample ≤ 10 ms into the file", ($0 ?? .infinity) <= 10)
            }
                + [report.startSkipMs?.left, report.startSkipMs?.right].map {
                    LabBound("no skip over 5 ms in the first second", abs($0 ?? .infinity) <= 5)
                }
                + [report.latencyMs?.left, report.latencyMs?.right].map {
                    LabBound("first sound < 600 ms after sending", ($0 ?? .infinity) < 600)
                }
                + [LabBound("in step from the first window (max ≤ 500 µs)", (report.maxAbsUs ?? .infinity) <= 500)]
        }
    }

    /// A receiver started 8 s after the stream joins the room that was there from the start in step: it places
    /// each packet by its RTP time on the sender's clock, whenever it came. Every window within 300 µs of the other
    /// room, and every one from 5 s after it joined on within 100 µs (a receiver 1 ms late fails both). Measured:
    /// within 50 µs from its first 0.5-1 s in 3 runs of 3; before `Clock.burstInterval` and the 5 s slope of
    /// `PulseStreamClock.window`, 40-75 µs off for its first 4.5-8 s (the bench's late-join row).
    @Test func aReceiverThatJoinsLateIsInStep() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 20
        run.join = [2: 8]
        run.boundMicroseconds = 100
        _ = try MultiRoomLab.run(run, titled: "multi-room, receiver 2 joins 8 s late", attempts: 2) { report in
            [
                LabBound("every window within 300 µs", (report.maxAbsUs ?? .infinity) <= 300),
                LabBound("within 100 µs from 5 s after joining on", (report.settleS ?? .infinity) <= 5),
            ]
        }
    }

    /// Beside a CPU hog (a busy loop on each core): the receivers still play from the first sample, in step, without
    /// a dropout, because the threads that carry the audio run realtime (`RealtimeThreads`). Measured with
    /// `--no-realtime` on both sides: dropouts of 60–124 ms and ranges of 0.7–4.2 ms between the rooms. Three
    /// attempts: the suite beside `stress-ng --cpu 2` runs this beside four busy loops on two cores, and a run there
    /// missed both of two on their start alone, each in step from its first window: both rooms first heard 149 ms
    /// into the file (the sender's first packet came after its sample was due), then a room whose lab PulseAudio did
    /// not say where its stream plays within the receiver's 60 ms (25 ms cut, an 80 ms skip).
    @Test func receiversBesideACPUHogStayInStep() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 20
        run.hogs = 2
        _ = try MultiRoomLab.run(run, titled: "multi-room beside a CPU hog", attempts: 3) { report in
            let steady = report.steady
            return [
                LabBound("≥ 20 steady windows", (steady?.windows ?? 0) >= 20),
                LabBound("median ≤ 1 ms", abs(steady?.medianUs ?? .infinity) <= 1_000),
                LabBound("core range ≤ 1 ms", (steady?.coreRangeUs ?? .infinity) <= 1_000),
                LabBound("steady dropouts ≤ 30 ms", (steady?.longestGapMs ?? .infinity) <= 30),
            ]
                + [report.firstSampleMs?.left, report.firstSampleMs?.right].map {
                    LabBound("first sample ≤ 10 ms into the file", ($0 ?? .infinity) <= 10)
                }
        }
    }

    /// The second receiver's clocks run 200 ppm fast (libfaketime): it follows the sender's clock anyway, so it
    /// does not drift away from the first (unsynchronised: 200 µs/s, 5 ms over the run), and sits where the first
    /// does: its PulseAudio snapshots carry the server's stamps as the other's do (libpulse compares them with the
    /// kernel's wall clock, `pa_gettimeofday`). Measured: median offsets -8 and +4 µs, p99 18 and 28 µs in 20 s lab
    /// runs; stamped at their arrival, as before, the fast room sat -22 to -50 µs off (bench: p99 75 µs). And it is
    /// in step from its first window: its clock's rate comes from the seed's bursts 0.3 s apart (`Clock.burstDelays`;
    /// measured: max 15-73 µs from the first window in 5 runs; before, at the nominal rate for its first 2-4 s, it
    /// drifted 100-650 µs away and back, beyond 200 µs in 5 runs of 9).
    @Test func aReceiverWithAFastClockStaysInStep() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 30
        run.fast = [2: 200]
        _ = try MultiRoomLab.run(run, titled: "multi-room, receiver 2 200 ppm fast") { report in
            let steady = report.steady
            // Held: the core of the windows (5th to 95th percentile) within 2 ms and not drifting. (A CI run once
            // had an excursion of 24 ms in a few of 57 windows, with a 12.8 ms dropout, on this fast receiver.
            // Receivers run with --no-sync sit 4.4 ms apart.)
            // No bound on dropouts: this receiver's first alignment, on a clock that has just been told it runs
            // fast, can be a jump of tens of ms at the start; the delay test bounds them.
            return [
                LabBound("≥ 40 steady windows", (steady?.windows ?? 0) >= 40),
                LabBound("median ≤ 30 µs", abs(steady?.medianUs ?? .infinity) <= 30),
                LabBound("max ≤ 200 µs from the first window", (report.maxAbsUs ?? .infinity) <= 200),
                LabBound("core range ≤ 2 ms", (steady?.coreRangeUs ?? .infinity) <= 2_000),
                LabBound("core drift ≤ 80 µs/s", abs(steady?.coreDriftUsPerS ?? .infinity) <= 80),
            ]
        }
    }

    /// `ppm` fast under libfaketime (its null sink then plays that much more than the sender sends, on top of the
    /// 80-190 ppm it runs fast by itself). Both rooms share that device, so staying in step with each other proves
    /// nothing (receivers that only follow the device are in step too); what must hold is each room's sending →
    /// sound latency in real time: the output aligner stretches the stream by the device's rate. Measured: latency
    /// drift -14 to +10 µs/s, range 0.13-0.33 ms; with `--no-sync` receivers, or the aligner's corrections left
    /// out, both rooms' latency drifted by the device's whole rate (-298 to -402 µs/s) while they stayed in step.
    @Test(arguments: [100.0, 200.0]) func roomsKeepTheirLatencyOnADeviceOffTheSendersClock(ppm: Double) throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 22
        run.devicePPM = ppm
        _ = try MultiRoomLab.run(run, titled: "multi-room, the device \(ppm) ppm fast") { report in
            let steady = report.steady
            // The device really ran that far off (its own rate comes on top).
            let measured = report.device.measuredPpm ?? .nan
            let tracks = [report.steadyLatency?.left, report.steadyLatency?.right].flatMap(Self.heldLatency)
            // The aligners measured the device as the lab did (their summary's "output +N ppm").
            let outputs = report.lab.processes.filter { $0.key.hasPrefix("receiver") }.map {
                LabBound(
                    "\($0.key)'s output ppm the device's",
                    abs((Self.outputDrift(in: $0.value.logTail) ?? .nan) - measured) <= 100)
            }
            // Dropouts: only bounded, as in the delay test: issue 22's dropouts of tens of ms on a loaded machine,
            // in both rooms at once (the server's, not the aligner's, whose steps are at most 4 samples), and as
            // long with the device at its own rate (load 4-6: 13-76 ms here, 41 ms in a normal run).
            return [
                LabBound("device \(ppm) ppm fast or more", measured >= ppm - 20 && measured <= ppm + 600),
                LabBound("≥ 25 steady windows", (steady?.windows ?? 0) >= 25),
                LabBound("median ≤ 1.5 ms", abs(steady?.medianUs ?? .infinity) <= 1_500),
                LabBound("core range ≤ 1 ms", (steady?.coreRangeUs ?? .infinity) <= 1_000),
                LabBound("steady dropouts ≤ 100 ms", (steady?.longestGapMs ?? .infinity) <= 100),
            ] + tracks + outputs
        }
    }

    /// Receivers that write to an ALSA device (a Raspberry Pi without a sound server) are aligned too: `alsasink`
    /// has its own clock (samples written less the device's delay) and hands its slaving to the same aligner. Here
    /// through ALSA's `pulse` plugin (libasound2-plugins; PULSE_SINK picks each room's channel), whose delay libpulse
    /// computes from the stream time the receiver makes unbiased (`PulseStreamClock`: libpulse's own calls reach it
    /// too). The output gets 100 ms of buffer and the latency room for it (the jitter buffer takes what is left):
    /// with the receivers' 40 ms the plugin's stream ran dry on a loaded machine and waited to refill, each time a
    /// step of 10-50 ms between the rooms for seconds (the sink's clock showed one such step only ~2 s after it was heard). With the aligner making no
    /// correction they sat -3.7 and +7.5 ms apart, constant (the median's bound failed, as it did when tried);
    /// aligned, the median within 50 µs, the core of the windows within 0.1-0.5 ms, no drift. Each room plays from
    /// the first sample without a skip: its output starts before that sample (`ReceiverSync
    /// .startedBeforeFirstSample`). Started with it, every room skipped 5-13 ms in its first second (seen failing here
    /// on both attempts).
    @Test func twoReceiversOnAlsaSinkStayInStep() throws {
        let receiver =
            "\(Paths.binary) receive rtp://@{group}:{port} --iface eth0 --latency-ms 160 "
            + "--sink 'alsasink device=pulse buffer-time=100000'"
        var run = MultiRoomRun(senders: [Self.sender], receivers: [receiver, receiver])
        run.seconds = 20
        _ = try MultiRoomLab.run(run, titled: "multi-room on alsasink") { report in
            let steady = report.steady
            return [
                LabBound("≥ 20 steady windows", (steady?.windows ?? 0) >= 20),
                LabBound("median ≤ 1.5 ms", abs(steady?.medianUs ?? .infinity) <= 1_500),
                LabBound("core range ≤ 2 ms", (steady?.coreRangeUs ?? .infinity) <= 2_000),
                LabBound("core drift ≤ 80 µs/s", abs(steady?.coreDriftUsPerS ?? .infinity) <= 80),
            ] + LabBound.receiversInSync(report)
                + LabBound.twoRoomsStart(report, firstSampleMs: 2, latencyMs: 130...190)
                // The jitter buffer leaves the output's 100 ms room: GStreamer's "configured latency is lower
                // than detected minimum latency" (a CORE CLOCK warning) is not said.
                + report.lab.processes.filter { $0.key.hasPrefix("receiver") }.map {
                    LabBound("\($0.key) without a latency warning", !$0.value.logTail.contains("clock problem"))
                }
        }
    }

    /// A pause and a play sent to the sender's control service (Snapcast's Stream.Control, as Home Assistant sends it)
    /// stop every room at once and start them again in step: both fall silent for the pause, and the windows after
    /// the resume are as close as before it.
    @Test func aPauseFromTheHubResumesEveryRoomInStep() throws {
        let dir = try Paths.makeScratch("multiroom-hub")
        defer { Paths.removeScratch(dir) }
        let controller = dir.appendingPathComponent("controller.sh").path
        try """
        call() { printf '{"id":1,"jsonrpc":"2.0","method":"Stream.Control","params":{"id":"%s","command":"%s"}}\\n' \\
            "$1" "$2" | socat -t 1 - TCP:127.0.0.1:1705; }
        sleep 6; call "$1" pause; sleep 2; call "$1" play
        """.write(toFile: controller, atomically: true, encoding: .utf8)
        var run = MultiRoomRun(
            senders: ["\(Self.sender) --control --control-open", "sh \(controller) rtp://{group}:{port}"],
            receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 20
        run.warmupSeconds = 11
        _ = try MultiRoomLab.run(run, titled: "multi-room, paused and resumed from the hub") { report in
            let steady = report.steady
            // The pause is heard: both rooms silent for about its 2 s (at most once, not for the whole run).
            return [report.longestGapMs.left, report.longestGapMs.right].map {
                LabBound("silent 1.5-4 s for the pause", $0 > 1_500 && $0 < 4_000)
            } + [
                LabBound("≥ 10 windows after the resume", (steady?.windows ?? 0) >= 10),
                LabBound("median ≤ 1.5 ms", abs(steady?.medianUs ?? .infinity) <= 1_500),
                LabBound("core range ≤ 1.5 ms", (steady?.coreRangeUs ?? .infinity) <= 1_500),
                LabBound("dropouts after the resume ≤ 60 ms", (steady?.longestGapMs ?? .infinity) <= 60),
            ]
        }
    }

    /// The same on PipeWire (pipewire-pulse under pulsesink): two receivers with normal clocks stay in step, p99
    /// within 100 µs (goal: 50) and no drift. pipewire-pulse's read index moves once per graph cycle and is seen to
    /// move some hundreds of µs later, differently for each stream; `PulseStreamClock` places each stream by its
    /// graph's own cycle starts (`PipeWireCycles`). Before (snapshots alone) the rooms wandered through ±150-300 µs
    /// (p99 258-271 µs here); by the cycle starts bursts of requests found, steady p99 62-83 µs (three rooms); by the
    /// graph's, 21-42 µs (lab runs of three rooms, 2026-12-05). Nothing is cut at the start: the output opens while
    /// the receiver waits for a sender (`openOutputEarly`). Before, a pipewire-pulse stream connected when the first
    /// buffer was already due (26 ms, against PulseAudio's 0.2), and the rooms' first sound was 0-30 ms into the
    /// file (over 2 ms in 14 of 26 rooms); since, 0.0 ms in 30 of 30 rooms. Nor does a room skip in its first
    /// second: its stream plays silence from when the output opens (`OutputWarmUp`), so it is placed by its graph's
    /// cycle starts before the first sample. Before, it started with its first sample, and each room's start-up move
    /// skipped or repeated 0.3-2.4 ms some 0.2 s in (10 of 12 rooms in lab runs; since, none of 27 over 0.5 ms).
    @Test(.enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"))
    func receiversOnPipeWirePlayInStep() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.server = "pipewire"
        run.seconds = 20
        // The rooms' start-up moves, which this bounds, fell silent in both rooms at once (0.3-3.7 ms): the lab's
        // server is to blame for a silence in every room only where one is a lost graph cycle long.
        _ = try MultiRoomLab.run(run, titled: "multi-room on PipeWire", shortestServerSilenceMs: 5) { report in
            let steady = report.steady
            return [
                LabBound("≥ 20 steady windows", (steady?.windows ?? 0) >= 20),
                LabBound("steady p99 ≤ 100 µs", (steady?.p99AbsUs ?? .infinity) <= 100),
                LabBound("drift ≤ 5 µs/s", abs(steady?.driftUsPerS ?? .infinity) <= 5),
            ]
                + Self.placedByCycles(report)
                + [report.firstSampleMs?.left, report.firstSampleMs?.right].map {
                    LabBound("first sample ≤ 10 ms into the file", ($0 ?? .infinity) <= 10)
                }
                + [report.startSkipMs?.left, report.startSkipMs?.right].map {
                    LabBound("no skip over 0.5 ms in the first second", abs($0 ?? .infinity) <= 0.5)
                }
        }
    }

    /// yt-gst's own PipeWire output (`ytpipewiresink`, the `pipewire` template) as the rooms' output, with normal
    /// clocks and with the second receiver's clocks 200 ppm fast (libfaketime): the rooms play in step to within a
    /// sample or two, from the first sample, at the shared latency. Its clock is the stream's own timing (the
    /// graph's cycle start on the kernel's clock, and what is queued), so `OutputAligner` places the output inside
    /// PipeWire's 256-sample cycle, which pipewiresink cannot (its rooms sit whole cycles apart). Measured: steady
    /// p99 0-83 µs over 10 normal runs and 21-145 µs on a fast receiver, sending → sound 80.1 ms; before, with
    /// pipewiresink, 5.3-8.8 ms, and with pulsesink on pipewire-pulse 60-270 µs. Broken on purpose (the clock
    /// without PipeWire's timing, only what is queued: a staircase of 256 frames) both cases missed the p99 bound
    /// on both attempts (322 and 627 µs on the fast receiver). A server losing cycles (the lab's PipeWire, see
    /// `serverOverloadPPM`) moves one room and the aligner takes it back over a few seconds: a known issue then.
    /// A third attempt: on 2026-12-03 the lab's PipeWire, otherwise on its rate, lost whole cycles (gaps of 5.3-27
    /// ms) in the steady part of 11 of 12 runs, and the fast case's steady p99 was 56-575 µs with this build and
    /// 166-3936 µs with the one before (4 runs each), and a CI run missed both attempts. The broken clock misses
    /// every attempt. A last attempt whose rooms fell silent together (a lost cycle) is a known issue
    /// (`serverFault`): a full CI run of 2026-12-03 missed all three fast attempts, two with the lab's PipeWire
    /// 478 ppm off and one on its rate with a lost cycle that left the rooms 10 ms apart for a while. The start:
    /// the output drops what the graph plays before its first frame, so no room skips at the aligner's start-up
    /// move (measured 0.06-0.2 ms in 10 runs; before, 1.6-11 ms); with nothing dropped both cases missed the
    /// skip bound on all three attempts (skips of 0.7-8.2 ms).
    @Test(
        .enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"),
        arguments: [0.0, 200.0])
    func receiversOnPipeWireOutputPlayInStep(fastPPM: Double) throws {
        let receiver =
            "\(Paths.binary) receive rtp://@{group}:{port} --iface eth0 --sink 'ytpipewiresink target-object={sink}'"
        var run = MultiRoomRun(senders: [Self.sender], receivers: [receiver, receiver])
        run.server = "pipewire"
        run.seconds = 20
        if fastPPM != 0 { run.fast = [2: fastPPM] }
        // A fast receiver's clock is corrected as it goes: measured 21-145 µs (normal clocks: 0-83 µs).
        let p99Bound: Double = fastPPM == 0 ? 150 : 250
        let title = "multi-room on ytpipewiresink, receiver 2 \(Int(fastPPM)) ppm fast"
        _ = try MultiRoomLab.run(run, titled: title, attempts: 3) { report in
            let steady = report.steady
            return [
                LabBound("≥ 20 steady windows", (steady?.windows ?? 0) >= 20),
                LabBound("p99 ≤ \(Int(p99Bound)) µs (goal: 50)", (steady?.p99AbsUs ?? .infinity) <= p99Bound),
                LabBound("drift ≤ 10 µs/s", abs(steady?.coreDriftUsPerS ?? .infinity) <= 10),
            ] + LabBound.twoRoomsStart(report, firstSampleMs: 10, latencyMs: 70...95)
                + (fastPPM == 0 ? LabBound.receiversInSync(report) : [])
        }
    }

    /// A player on `ytpipewiresink` is heard from the file's first sample: what the output drops at its start to
    /// set its clock going (above) is only ever silence, so a file that starts at once loses nothing. Measured:
    /// 0.0 ms into the file in every room; broken on purpose (the first frames dropped whatever they held) the
    /// file was heard from 19.5-21 ms on in 7 of 12 rooms (the others began with silence).
    @Test(.enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"))
    func aPlayerOnPipeWireOutputIsHeardFromTheFirstSample() throws {
        let player =
            "\(Paths.binary) play {noise} --no-mpris --status none --sink 'ytpipewiresink target-object={sink}'"
        var run = MultiRoomRun(senders: ["sleep 60"], receivers: [player, player, player])
        run.server = "pipewire"
        run.seconds = 4
        _ = try MultiRoomLab.run(run, titled: "play on ytpipewiresink") { report in
            [report.firstSampleMs?.left, report.firstSampleMs?.right, report.firstSampleMs?.center].map {
                LabBound("heard from the first sample (≤ 0.5 ms into the file)", ($0 ?? .infinity) <= 0.5)
            }
        }
    }

    /// A player on `ytpipewiresink` paused for 0.7 s and resumed (through its IPC socket) goes on where it stopped:
    /// the output pauses its stream and keeps what it holds. (Before, GstAudioSink fell back to the output's reset,
    /// which dropped it: measured, every resume skipped 16-24 ms of the file.)
    @Test(.enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"))
    func aPausedPlayerOnPipeWireOutputGoesOnWhereItStopped() throws {
        let (binary, socket) = (Paths.binary, "{work}/ipc{index}")
        let player =
            "sh -c \"\(binary) play {noise} --no-mpris --status none --sink 'ytpipewiresink target-object={sink}' "
            + "--input-ipc-server \(socket) & sleep 1.5; \(binary) ctl \(socket) set_property pause true; "
            + "sleep 0.7; \(binary) ctl \(socket) set_property pause false; wait\""
        var run = MultiRoomRun(senders: ["sleep 60"], receivers: [player, player])
        run.server = "pipewire"
        run.seconds = 5
        // Both rooms pause at once on purpose: that common silence is no fault of the lab's server.
        let title = "play on ytpipewiresink, paused and resumed"
        _ = try MultiRoomLab.run(run, titled: title, silencesAreTheServers: false) { report in
            ["left", "right"].map { room in
                let jumps = report.resumeJumpsMs?[room] ?? nil
                return LabBound(
                    "\(room): one pause, resumed where it stopped (within 1 ms)",
                    jumps?.count == 1 && jumps?.allSatisfy { abs($0 ?? .infinity) <= 1 } == true)
            }
        }
    }

    /// PipeWire's own sink (`pipewiresink`) as the rooms' output, with normal clocks, with the second receiver's
    /// clocks 200 ppm fast (libfaketime), and beside two CPU hogs: the rooms play in step to the sample, from the first one, at the shared
    /// latency. pipewiresink has no ring buffer and no clock, so no `OutputAligner` can follow it: its samples are
    /// placed on its PipeWire graph's cycles (`PipeWireSinkPacer`). Measured (8-20 s lab runs of two and three
    /// rooms): steady p99 0-21 µs in every run, normal, fast and beside CPU hogs (from the first sound 0-21 µs
    /// normal, 40-121 µs fast: the fast receiver's clock is still being corrected in its first second), sending →
    /// sound 80.0-80.2 ms, the first sample within 0.73 ms of the file's start; before, rooms sat on whole
    /// 256-sample cycles (0 or 5.3 ms apart), and sending → sound was 88-98 ms. Broken on purpose (no moves after
    /// the start) both cases missed the p99 bound (rooms 104-833 µs apart, from the clock's start-up estimate).
    /// Beside CPU hogs, the rooms' first audio was cut by 1-41 ms, and rooms started a cycle or two late, until
    /// the output opened before the first packet and the pacer waited for the sink's stream to play (its node to
    /// run: 12-55 ms after its format came): then the first sample in every room of 12 was 0.0 ms into the file.
    /// Broken on purpose (the output opened only with the first packet, as before), these runs still passed: the
    /// wait for the stream to play held their start; 6 s lab runs of three rooms beside two hogs cut the first
    /// 28 ms in every room once in five then. The project's CI missed every attempt of all three cases with rooms
    /// one or two cycles late from their first sample (85.5 / 90.8 ms), never seen on this machine; a render held
    /// up 5.4 ms on purpose does it here (85.4 ms in both rooms: the latency bound), and the start observed from
    /// the sink's buffers coming back (`PipeWireSinkPacer.observedStart`) brings them to 80.1 ms.
    @Test(
        .enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"),
        arguments: zip([0.0, 200.0, 0.0], [0, 0, 2]))
    func receiversOnPipeWiresOwnSinkPlayInStep(fastPPM: Double, hogs: Int) throws {
        var run = MultiRoomRun(
            senders: [Self.sender], receivers: [Self.pipeWireSinkReceiver, Self.pipeWireSinkReceiver])
        run.server = "pipewire"
        run.seconds = 15
        run.hogs = hogs
        if fastPPM != 0 { run.fast = [2: fastPPM] }
        let title = "multi-room on pipewiresink, receiver 2 \(Int(fastPPM)) ppm fast, \(hogs) CPU hogs"
        _ = try MultiRoomLab.run(run, titled: title, attempts: 3) { report in
            let steady = report.steady
            return [
                LabBound("≥ 15 steady windows", (steady?.windows ?? 0) >= 15),
                LabBound("p99 ≤ 100 µs (goal: 50)", (steady?.p99AbsUs ?? .infinity) <= 100),
                LabBound("drift ≤ 5 µs/s", abs(steady?.coreDriftUsPerS ?? .infinity) <= 5),
            ] + LabBound.twoRoomsStart(report, firstSampleMs: 2, latencyMs: 75...85)
                // A receiver under libfaketime leaves no last words.
                + (fastPPM == 0 ? LabBound.receiversInSync(report) + Self.placedByCycles(report) : [])
        }
    }

    /// A room on yt-gst's own PipeWire output (`ytpipewiresink`, aligned on its stream's timing) and one on
    /// `pipewiresink` told to play 10 ms later: the rooms keep the 10 ms to the sample. Two ways of placing the
    /// samples, so an error both pipewiresink rooms of the test above would share (a whole cycle, a delay left out)
    /// shows here. Measured: 10 000 µs (steady range 0-21 µs), sending → sound 80.2 / 90.2 ms; the two outputs
    /// without the delay: median 0 µs, p99 21 µs. Broken on purpose (the stream placed a cycle later) it missed the
    /// median and latency bounds on all three attempts. Before the pipewiresink room's samples were placed on the graph's
    /// cycles, a delay between two pipewiresink rooms came out 5 333 or 10 667 µs (PipeWire's grid of 256-sample
    /// cycles), or moved between those during a run.
    @Test(.enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"))
    func receiversOnPipeWiresOwnSinkKeepADelay() throws {
        let ownOutput =
            "\(Paths.binary) receive rtp://@{group}:{port} --iface eth0 --sink 'ytpipewiresink target-object={sink}'"
        let receivers = [ownOutput, Self.pipeWireSinkReceiver + " --delay-ms 10"]
        var run = MultiRoomRun(senders: [Self.sender], receivers: receivers)
        run.server = "pipewire"
        run.seconds = 15
        run.expectMicroseconds = 10_000
        _ = try MultiRoomLab.run(run, titled: "multi-room on pipewiresink, --delay-ms 10", attempts: 3) { report in
            let steady = report.steady
            let rooms: [(latency: Double?, delay: Double)] = [
                (report.steadyLatencyMs?.left, 0), (report.steadyLatencyMs?.right, 10),
            ]
            let latencies = rooms.map { room -> LabBound in
                let (low, high) = (75 + room.delay, 85 + room.delay)
                let latency = room.latency ?? 0
                return LabBound("latency \(Int(low))-\(Int(high)) ms", latency > low && latency < high)
            }
            return [
                LabBound("≥ 15 steady windows", (steady?.windows ?? 0) >= 15),
                LabBound("median 10 ms ± 50 µs", abs((steady?.medianUs ?? 0) - 10_000) <= 50),
                LabBound("core range ≤ 100 µs", (steady?.coreRangeUs ?? .infinity) <= 100),
            ] + latencies + LabBound.receiversInSync(report)
                + [LabBound("receiver2 placed by PipeWire's cycles", Self.placedByCycles(report).last?.holds == true)]
        }
    }

    /// pipewiresink rooms of a stream in another format than the one their output opens for before a sender is
    /// heard (48 kHz stereo L16; the graph runs at 48 kHz), 44.1 kHz mono L16 (the file's first channel), play it in
    /// step from its first sample: the output keeps its format and the stream is resampled into it
    /// (`ReceiveSession.keptFormat`). pipewiresink's stream keeps the format it was connected in until the sink
    /// closes (with the output left in its first format unconverted, a 1 kHz tone came out at 2 216 Hz). Measured
    /// (lab, 12 runs, all beside two CPU hogs, 3 beside four): sending → sound 80.04-80.19 ms, first sample 0.0 ms
    /// into the file, p99 14-42 µs. Opened again for the stream's format instead, the first 8-24 ms were cut in 2 runs of 19, and the
    /// project's CI once put both rooms 16 ms late on all three attempts. Broken on purpose (the output kept, the
    /// stream not converted) it missed on all three attempts; with the sink's pool left to the resampler, every
    /// receiver hung and was killed.
    @Test(.enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"))
    func receiversOnPipeWiresOwnSinkPlayAStreamInAnotherRate() throws {
        let sender =
            "sh -c 'sox {noise} -r 44100 {work}/other.wav remix 1 && exec \(Paths.binary) stream {work}/other.wav "
            + "--to rtp://{group}:{port} --iface eth0 -q'"
        var run = MultiRoomRun(senders: [sender], receivers: [Self.pipeWireSinkReceiver, Self.pipeWireSinkReceiver])
        run.server = "pipewire"
        run.seconds = 15
        let title = "multi-room on pipewiresink, 44.1 kHz mono"
        _ = try MultiRoomLab.run(run, titled: title, attempts: 3, silencesAreTheServers: false) { report in
            let steady = report.steady
            return [
                LabBound("≥ 15 steady windows", (steady?.windows ?? 0) >= 15),
                LabBound("p99 ≤ 100 µs", (steady?.p99AbsUs ?? .infinity) <= 100),
            ] + LabBound.twoRoomsStart(report, firstSampleMs: 2, latencyMs: 75...85) + LabBound.receiversInSync(report)
        }
    }

    @Test(.enabled(if: MultiRoomLab.pipeWireAvailable, "needs PipeWire, pipewire-pulse and wireplumber"))
    func receiversOnPipeWiresOwnSinkPlayOnAfterTheGraphStalls() throws {
        var run = MultiRoomRun(
            senders: [Self.sender], receivers: [Self.pipeWireSinkReceiver, Self.pipeWireSinkReceiver])
        run.server = "pipewire"
        run.seconds = 15
        run.serverStall = (at: 2.5, milliseconds: 100)
        let title = "multi-room on pipewiresink, the graph stalled for 100 ms"
        _ = try MultiRoomLab.run(run, titled: title, attempts: 3, silencesAreTheServers: false) { report in
            let steady = report.steady
            return [
                LabBound("≥ 15 steady windows", (steady?.windows ?? 0) >= 15),
                LabBound("p99 ≤ 100 µs", (steady?.p99AbsUs ?? .infinity) <= 100),
                LabBound("no silence over 400 ms", report.longestGapMs.max <= 400),
            ] + LabBound.twoRoomsStart(report, firstSampleMs: 2, latencyMs: 70...100) + LabBound.receiversInSync(report)
        }
    }

    static let pipeWireSinkReceiver =
        "\(Paths.binary) receive rtp://@{group}:{port} --iface eth0 --sink 'pipewiresink target-object={sink}'"

    /// Each receiver's last words say its output was placed by its PipeWire graph's cycles.
    static func placedByCycles(_ report: SkewReport) -> [LabBound] {
        report.lab.processes.sorted { $0.key < $1.key }.filter { $0.key.hasPrefix("receiver") }.map {
            LabBound("\($0.key) placed by PipeWire's cycles", $0.value.logTail.contains("PipeWire's cycles"))
        }
    }

    /// Where there is an NTP server, sender and receivers can run on it (`--clock ntp://HOST:PORT`) instead of the
    /// sender's own clock: the receivers play in step just the same.
    @Test func anNTPClockKeepsReceiversInStep() throws {
        let ntp = "--clock ntp://{sender}:12300"
        var run = MultiRoomRun(
            senders: ["\(Self.sender) \(ntp)"], receivers: [Self.receiver(ntp), Self.receiver(ntp)])
        run.before = ["/usr/bin/python3 \(Paths.packageRoot.path)/scripts/tiny-ntp-server.py 12300"]
        run.seconds = 15
        _ = try MultiRoomLab.run(run, titled: "multi-room on an NTP clock") { report in
            let steady = report.steady
            // The summary's clock figure is the distance to the NTP clock (µs), not its epoch's (since 1900).
            let offsets = report.lab.processes.filter { $0.key.hasPrefix("receiver") }.map {
                LabBound("\($0.key)'s clock within 2 ms", abs(Self.clockOffset(in: $0.value.logTail) ?? .max) < 2_000)
            }
            return [
                LabBound("≥ 15 steady windows", (steady?.windows ?? 0) >= 15),
                LabBound("median ≤ 1.5 ms", abs(steady?.medianUs ?? .infinity) <= 1_500),
                LabBound("range ≤ 1.5 ms", (steady?.rangeUs ?? .infinity) <= 1_500),
            ] + LabBound.receiversInSync(report) + offsets
        }
    }

    /// A room's sending → sound latency held along the steady stretch, in real time.
    static func heldLatency(_ track: SkewReport.LatencyTrack?) -> [LabBound] {
        guard let track else { return [LabBound("a latency track", false)] }
        return [
            LabBound("≥ 12 latency points", track.points >= 12),
            LabBound("latency 20-120 ms", track.ms > 20 && track.ms < 120),
            LabBound("latency drift ≤ 40 µs/s", abs(track.driftUsPerS) <= 40),
            LabBound("latency range ≤ 1.5 ms", track.rangeUs <= 1_500),
        ]
    }

    /// The N of the last "output ±N ppm" a receiver said.
    static func outputDrift(in log: String) -> Double? {
        guard let match = log.matches(of: /output ([+-]?\d+) ppm/).last else { return nil }
        return Double(match.1)
    }

    /// The N of the last "clock ±N µs" a receiver said.
    static func clockOffset(in log: String) -> Int? {
        guard let match = log.matches(of: /clock ([+-]?\d+) µs/).last else { return nil }
        return Int(match.1)
    }
}
