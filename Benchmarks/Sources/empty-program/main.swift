// The baseline for cold-start benchmarks: a Swift program that does nothing.
