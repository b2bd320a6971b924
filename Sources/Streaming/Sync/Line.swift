// yt-gst — the least-squares line through timed points: how the output's gap and a stream's position are estimated.

/// A straight line `value(at: t) = value + slope × (t − origin)` fitted by least squares.
public struct Line: Equatable, Sendable {
    public var origin: Double
    /// The line's value at `origin`.
    public var value: Double
    public var slope: Double

    /// The least-squares line through `points` (x, y), with x counted from `origin`; nil for fewer than two
    /// distinct x.
    public init?<Points: Sequence>(through points: Points, origin: Double)
    where Points.Element == (x: Double, y: Double) {
        var count = 0.0, sumX = 0.0, sumY = 0.0, sumXX = 0.0, sumXY = 0.0
        for point in points {
            let x = point.x - origin
            count += 1
            sumX += x
            sumY += point.y
            sumXX += x * x
            sumXY += x * point.y
        }
        let denominator = count * sumXX - sumX * sumX
        guard denominator > 0 else { return nil }
        self.origin = origin
        slope = (count * sumXY - sumX * sumY) / denominator
        value = (sumY - slope * sumX) / count
    }

    /// The line through (`origin`, `value`) with this slope.
    public init(origin: Double, value: Double, slope: Double) {
        self.origin = origin
        self.value = value
        self.slope = slope
    }

    public func value(at x: Double) -> Double { value + slope * (x - origin) }
}
