// yt-gst — sound really goes out: play noise through the default pipeline into PulseAudio's null sink and
// record the sink's monitor. The test command (make test) starts that PulseAudio and sets PULSE_SERVER.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct AudioOutputTests {
    static let pulse = ProcessInfo.processInfo.environment["PULSE_SERVER"]
    static let sinkName = ProcessInfo.processInfo.environment["YT_GST_PULSE_SINK"] ?? "spk"

    /// The null sink runs at the file's rate and format, so PulseAudio passes the samples through untouched: the
    /// recording is silence, then every sample of the file exactly, then silence.
    @Test(.enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"))
    func defaultOutputPlaysEverySampleUnchanged() throws {
        let dir = try Paths.makeScratch("audio")
        defer { Paths.removeScratch(dir) }
        let noise = SyntheticWAV.noise(frames: 48_000 * 2, rate: 48_000, channels: 2)
        let input = try noise.write(to: dir.appendingPathComponent("noise.wav"))
        let recording = dir.appendingPathComponent("rec.wav").path
        let recorder = try Run.launch(
            "/usr/bin/parec",
            [
                "-d", "\(Self.sinkName).monitor", "--rate=48000", "--channels=2", "--format=s16le", "--file-format=wav",
                recording,
            ])
        defer { if recorder.isRunning { recorder.signal(SIGKILL) } }
        usleep(500_000)
        let played = try Run.ytGst(["play", input], timeout: 30)
        usleep(500_000)
        recorder.signal(SIGINT)  // parec writes its WAV header on SIGINT
        _ = recorder.wait(timeout: 5)
        #expect(played.status == 0, "\(played.stderr)")

        let recorded = try RecordedWAV(path: recording)
        #expect(recorded.sampleRate == 48_000 && recorded.channels == 2 && recorded.bitsPerSample == 16)
        let data = recorded.data
        let first = try #require(data.firstIndex { $0 != 0 }, "the recording is silent")
        let start = first - first % 4  // the frame of the first sound
        try #require(data.count >= start + noise.samples.count, "the recording stops before the file's end")
        #expect(data[start..<start + noise.samples.count].elementsEqual(noise.samples), "the samples changed")
        #expect(data[(start + noise.samples.count)...].allSatisfy { $0 == 0 }, "sound after the file's end")
    }

    /// An ALSA output (`alsasink` on ALSA's null device, which every libasound has) plays a file from `--start`,
    /// which flushes the sink: every audio sink keeps its own flush. (Broken once: ytpipewiresink's flush was set
    /// where every GstAudioSink subclass found it, and alsasink's flush called it: the player died of SIGILL.)
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/alsa/alsa.conf"), "needs libasound"))
    func anALSAOutputFlushesOnItsOwn() throws {
        let dir = try Paths.makeScratch("alsa")
        defer { Paths.removeScratch(dir) }
        let input = try SyntheticWAV.tone(frequency: 440, frames: 48_000, rate: 48_000, channels: 2)
            .write(to: dir.appendingPathComponent("tone.wav"))
        let played = try Run.ytGst(
            ["play", input, "--sink", "alsasink device=null", "--start", "0.5", "--status", "none", "--no-mpris"],
            timeout: 30)
        #expect(played.termination == .exited(0), "\(played.termination): \(played.stderr)")
    }

    /// Whether the default output has somewhere to play is probed without PipeWire's own device provider
    /// (`Gst.audioOutputs`): the others are loaded for the probe, it is not. Its probe (gstreamer1.0-pipewire 0.3.65)
    /// crashed a receiver beside PipeWire now and then. Seen red: before, the probe loaded it as the others.
    @Test(
        .enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"),
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstpipewire.so"),
            "needs gstreamer1.0-pipewire"))
    func theOutputProbeLeavesPipeWiresDeviceProviderOut() throws {
        let dir = try Paths.makeScratch("probe")
        defer { Paths.removeScratch(dir) }
        let input = try SyntheticWAV.tone(frames: 4_800).write(to: dir.appendingPathComponent("tone.wav"))
        let played = try Run.run(
            Paths.binary, ["play", input, "--status", "none", "--no-mpris"], timeout: 30,
            environment: ["GST_DEBUG": "GST_PLUGIN_LOADING:5", "GST_DEBUG_NO_COLOR": "1"])
        #expect(played.termination == .exited(0), "\(played.termination): \(played.stderr.suffix(500))")
        let probed = played.stderr.contains("'pulsedeviceprovider'")
        let probedPipeWire = played.stderr.contains("'pipewiredeviceprovider'")
        #expect(probed, "the probe did not run")
        #expect(!probedPipeWire, "PipeWire's device provider was loaded for the probe")
    }
}
