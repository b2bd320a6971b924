// yt-gst — what an audio sink that follows another clock tells its slaving (`Element.follow(_:)`), on a real sink.
import Foundation
import GstPlayer
import Synchronization
import Testing

@Suite struct OutputSlavingTests {
    /// Records every placement lead the sink reports, and moves nothing.
    final class Recorder: OutputSlaving {
        let leads = Mutex<[Double]>([])
        func correction(pipelineTime: Int64, deviceTime: Int64, placementLead: Double, sampleRate: Int) -> Int64 {
            leads.withLock { $0.append(placementLead) }
            return 0
        }
        func discontinuity(_ reason: OutputDiscontinuity) {}
    }

    /// pulsesink (on the test's PulseAudio) slaved to the system clock, realigning on a sample's difference as a
    /// receiver's does: for every buffer, the lead its slaving is told is where the sink's render put it, as its debug
    /// log says (the buffer's time in the device clock, less the clock's time offset, against the ring buffer sample
    /// it was written to), through steps of 7 µs of ts-offset that move the buffers across a sample's boundary.
    /// Reported as 0, or for another buffer's time, it is not.
    @Test func theLeadIsWhereTheSinkPutTheBufferInItsDevice() throws {
        let rate = 48_000.0
        let pipeline = try Pipeline(
            launch: "audiotestsrc is-live=true samplesperbuffer=480 volume=0.01 "
                + "! audio/x-raw,format=S16LE,rate=48000,channels=1 "
                + "! pulsesink name=out alignment-threshold=31250 discont-wait=0")
        let sink = try pipeline.element(named: "out")
        let recorder = Recorder()
        sink.follow(recorder)
        let watch = DebugLogWatch(
            category: "audiobasesink", level: .debug,
            patterns: ["final timestamps: start", "apply time offset", "rendering at"], pipeline: pipeline,
            messageName: "test/render")
        defer { watch.stop() }
        let clock = Clock.system()
        pipeline.run(on: clock, baseTime: clock.time)
        defer { _ = try? pipeline.setState(.null) }
        _ = try pipeline.setState(.playing)
        for step in 1...4 {
            Thread.sleep(forTimeInterval: 0.25)
            try sink.set("ts-offset", to: step * 7_000)
        }
        Thread.sleep(forTimeInterval: 0.25)
        watch.stop()
        let leads = recorder.leads.withLock { $0 }
        // Each buffer rendered: its time in the device clock, the time offset, the sample it was written to.
        var rendered: [(time: Double, offset: Double, sample: Double?)] = []
        while let message = pipeline.nextMessage(timeout: .zero) {
            guard case .application(let structure) = message.view, structure.name == "test/render",
                let text = structure.string("text")
            else { continue }
            let words = text.split(separator: " ")
            if text.hasPrefix("final timestamps: start") {
                rendered.append((OutputSlavingTests.nanoseconds(words[3]), 0, nil))
            } else if text.hasPrefix("apply time offset"), !rendered.isEmpty {
                rendered[rendered.count - 1].offset = OutputSlavingTests.nanoseconds(words[3])
            } else if text.hasPrefix("rendering at"), !rendered.isEmpty {
                rendered[rendered.count - 1].sample = Double(words[2])
            }
        }
        // (The bus is read while the pipeline plays: at NULL it drops what it holds.)
        try #require(
            rendered.count >= 30 && leads.count >= rendered.count, "\(leads.count) leads, \(rendered.count) renders")
        var compared = 0
        for (lead, render) in zip(leads, rendered) {
            guard let sample = render.sample else { continue }
            let placed = render.time - render.offset - sample * 1e9 / rate
            #expect(abs(lead - placed) < 2, "told \(lead) ns, placed \(placed) ns early")
            compared += 1
        }
        #expect(compared >= 30)
    }

    /// A GStreamer time as its debug log prints it ("0:00:01.000000020", "+0:00:00.000007000"), in ns.
    static func nanoseconds(_ text: Substring) -> Double {
        let negative = text.hasPrefix("-")
        let parts = text.trimmingCharacters(in: CharacterSet(charactersIn: "+-")).split(separator: ":")
        guard parts.count == 3, let hours = Double(parts[0]), let minutes = Double(parts[1]) else { return .nan }
        let secondParts = parts[2].split(separator: ".")
        guard secondParts.count == 2, let seconds = Double(secondParts[0]), let fraction = Double(secondParts[1])
        else { return .nan }
        let value = ((hours * 60 + minutes) * 60 + seconds) * 1e9 + fraction
        return negative ? -value : value
    }
}
