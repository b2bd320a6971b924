// yt-gst — the programs that play into PulseAudio export libpulse's two calls that PulseStreamClock takes over.
import Foundation
import TestSupport
import Testing

/// `yt-gst` and the README's `synced-receiver` export `pa_stream_get_time` and `pa_stream_connect_playback`
/// (Package.swift's `exportsPulseStreamClock`): without them pulsesink calls libpulse's directly, whose stream time
/// can wrap and stop the output for good after a pause (`PulseOutputSeekTests`), and a receiver loses its fitted
/// clock. Read from each binary's dynamic symbol table with binutils' `nm`.
@Suite struct ExportedSymbolsTests {
    @Test(arguments: ["yt-gst", "synced-receiver"])
    func exportsThePulseAudioCalls(program: String) throws {
        let path = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent(program).path
        let listing = try Run.run("/usr/bin/nm", ["--dynamic", "--defined-only", path])
        #expect(listing.termination == .exited(0), "nm \(path): \(listing.stderr)")
        let exported = Set(listing.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last })
        for symbol in ["pa_stream_get_time", "pa_stream_connect_playback"] {
            #expect(exported.contains(Substring(symbol)), "\(program) does not export \(symbol)")
        }
    }
}
