// yt-gst — where a pipewire-pulse stream's cycles start, from PipeWire itself (see `PipeWireCycles`).
import Dispatch
import Glibc
import GstPlayer
import Synchronization

extension PulseStreamClock {
    /// A sink's graph watch: being opened, open, or not to be had (no libpipewire or no PipeWire server here).
    enum CycleWatch {
        case opening
        case watching(PipeWireCycles)
        case unavailable
    }

    /// The watches of the sinks (by name) that streams whose position moves in steps play to, while a `Use` lives.
    static let cycleWatches = Mutex([String: CycleWatch]())

    /// The graph cycle under way at a time (µs): its start and its length (µs); nil where not known.
    typealias CycleAt = (Double) -> (start: Double, period: Double)?

    /// The graph cycle of `stream`'s sink under way at a time (µs, `monotonicMicroseconds`): its start and the time
    /// from the one before (µs); nil while the sink's graph is not watched (the watch is asked for then, once). Only
    /// for a server on this machine, whose sink is a node of the PipeWire graph here.
    static func cycleStarts(of stream: OpaquePointer) -> CycleAt? {
        guard let library = Library.shared, let context = library.streamContext(stream),
            library.contextIsLocal(OpaquePointer(context)) == 1,
            let name = library.deviceName(stream).map({ String(cString: $0.assumingMemoryBound(to: CChar.self)) })
        else { return nil }
        let entry = cycleWatches.withLock { all -> CycleWatch? in
            if let known = all[name] { return known }
            all[name] = .opening
            return nil
        }
        guard let entry else {
            // Connecting takes milliseconds: not on libpulse's main loop, which every stream of the process waits on.
            DispatchQueue.global().async {
                let watch = PipeWireCycles(sink: name)
                cycleWatches.withLock { all in
                    guard case .opening = all[name] else { return }  // the last `Use` ended meanwhile
                    all[name] = watch.map { .watching($0) } ?? .unavailable
                }
            }
            return nil
        }
        guard case .watching(let watch) = entry else { return nil }
        // The watch stamps on the kernel's clock, the streams' snapshots are on this process's (see `KernelClock`).
        let ahead = Double(monotonicMicroseconds()) - Double(KernelClock.nanoseconds(CLOCK_MONOTONIC)) / 1000
        return { time in
            watch.cycle(atOrBefore: Int64((time - ahead) * 1000)).map {
                (Double($0.start) / 1000 + ahead, Double($0.period) / 1000)
            }
        }
    }

    /// Whether a stream of this process is placed by its graph's own cycle starts (for the receiver's status).
    public static var placedByGraphCycles: Bool {
        streams.withLock { all in all.values.contains { $0.boundaries.contains { $0.roundTrip == 0 } } }
    }

    /// Ends every watch (the last `Use` ended), here: outside the lock, and not on a watch's own thread.
    static func endCycleWatches() {
        let ended = cycleWatches.withLock { all in
            defer { all.removeAll() }
            return all
        }
        for case .watching(let watch) in ended.values { watch.stop() }
    }
}
