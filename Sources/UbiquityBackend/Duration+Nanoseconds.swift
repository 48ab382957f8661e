extension Duration {
    /// The duration in whole nanoseconds (what swift-metrics' timers record).
    package var nanoseconds: Int64 {
        let (s, a) = components
        return s * 1_000_000_000 + a / 1_000_000_000
    }
}
