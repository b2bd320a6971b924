// yt-gst — the programs that play into PulseAudio export libpulse's calls that PulseStreamClock takes over.
import Foundation
import TestSupport
import Testing

/// `yt-gst` and the README's `synced-receiver` export `pa_stream_get_time`, `pa_stream_connect_playback`,
/// `pa_stream_write` and `pa_gettimeofday` (Package.swift's `exportsPulseStreamClock`): without them pulsesink calls
/// libpulse's directly, whose stream time can wrap and stop the output for good after a pause
/// (`PulseOutputSeekTests`), a receiver loses its fitted clock and the silence its stream starts with, and one under
/// libfaketime the server's stamps on its snapshots (`MultiRoomSyncTests`'s fast receiver). Read from each binary's dynamic symbol table with binutils' `nm`.
@Suite struct ExportedSymbolsTests {
    static let symbols = ["pa_stream_get_time", "pa_stream_connect_playback", "pa_stream_write", "pa_gettimeofday"]

    @Test(arguments: ["yt-gst", "synced-receiver"])
    func exportsThePulseAudioCalls(program: String) throws {
        let path = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent(program).path
        let listing = try Run.run("/usr/bin/nm", ["--dynamic", "--defined-only", path])
        #expect(listing.termination == .exited(0), "nm \(path): \(listing.stderr)")
        let exported = Set(listing.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last })
        let missing = Self.symbols.filter { !exported.contains(Substring($0)) }
        #expect(missing.isEmpty, "\(program) does not export \(missing.joined(separator: ", "))")
    }

    /// libpulse's own calls reach them too: its timing snapshots take their wall clock from `pa_gettimeofday`, a
    /// call through its procedure linkage table, which the executable's symbol wins. (A libpulse linked with
    /// -Bsymbolic would call its own, and nothing else would say so.) Read from the dynamic linker's bindings
    /// (`LD_DEBUG=bindings`, every symbol bound when libpulse loads with `LD_BIND_NOW`), in a play that fails at
    /// once on a server that does not exist, after pulsesink loaded libpulse.
    @Test func libpulseTakesItsCallsFromTheExecutable() throws {
        let dir = try Paths.makeScratch("bindings")
        defer { Paths.removeScratch(dir) }
        let input = try SyntheticWAV.tone(frequency: 440, frames: 4_800, rate: 48_000, channels: 2)
            .write(to: dir.appendingPathComponent("tone.wav"))
        let log = dir.appendingPathComponent("bindings")
        let played = try Run.run(
            Paths.binary,
            ["play", input, "--sink", "pulsesink server=unix:\(dir.path)/no-server", "--status", "none", "--no-mpris"],
            timeout: 30, environment: ["LD_BIND_NOW": "1", "LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": log.path])
        #expect(played.termination != .exited(0), "played without a server: \(played.stderr)")
        let logs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("bindings") }
        let bindings = try logs.map { try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8) }
            .joined()
        let executable = URL(fileURLWithPath: Paths.binary).lastPathComponent
        // Only pulsesink (and ALSA's plugin) calls these two; libpulse does not.
        for symbol in Self.symbols where !["pa_stream_connect_playback", "pa_stream_write"].contains(symbol) {
            let bound = bindings.split(separator: "\n").contains {
                $0.contains("libpulse.so") && $0.contains("/\(executable) [0]: normal symbol `\(symbol)'")
            }
            #expect(bound, "libpulse's \(symbol) is not the executable's")
        }
    }
}
