#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file replaced as ``FileIO/write(bytes:to:mode:)`` replaces it, written
/// in pieces while they are made.
///
/// A thread of its own writes each piece (the kernel's copy into the page
/// cache) and, every few megabytes, `fdatasync`s, so that the disk works
/// while the maker goes on; ``commit()`` then has the last piece to sync,
/// not the whole file. `plutil -convert xml1` of a large binary file makes
/// its XML this way: the copy and the disk take no time from the
/// conversion on a machine with a second core.
///
/// ```swift
/// let file = try StreamedFileWrite(path: "out.plist")
/// file.append(firstPiece)
/// file.append(secondPiece)
/// try file.commit()   // or file.abandon(): the old file stays as it was
/// ```
///
/// At most ``piecesInFlight`` pieces wait: ``append(_:)`` blocks beyond
/// that, so memory stays bounded however fast the pieces come. Pieces
/// written are handed back through ``reusablePiece()`` (their memory is
/// already mapped). A failed write fails ``commit()`` with its error;
/// nothing is renamed then.
package final class StreamedFileWrite {
    package static let piecesInFlight = 3
    /// `fdatasync` after this many bytes.
    static let syncEvery = 4 << 20

    private let replacement: FileIO.Replacement
    private let path: String
    /// What the writing thread shares with this object. The thread holds it,
    /// not this object, so that dropping this object stops the thread
    /// (`deinit` abandons the file).
    private let shared: Shared
    private var thread = pthread_t()
    private var running = false

    /// Opens the temporary file beside `path` and starts the writing thread.
    package init(path: String, mode: UInt32 = 0o644) throws(FileError) {
        self.path = path
        replacement = try FileIO.Replacement(path: path, mode: mode)
        shared = Shared(fd: replacement.fd)
        let context = Unmanaged.passRetained(shared).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Shared>.fromOpaque(context!).takeRetainedValue().writeLoop()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Shared>.fromOpaque(context).release()
            replacement.abandon()
            throw FileError(path: path, errno: started)
        }
        running = true
    }

    deinit {
        if running { abandon() }
    }

    /// Queues `piece` to be written (waits while ``piecesInFlight`` do).
    package func append(_ piece: [UInt8]) {
        shared.append(piece)
    }

    /// A piece already written, emptied, for the next one (nil when none is free).
    package func reusablePiece() -> [UInt8]? {
        shared.reusablePiece()
    }

    /// Waits for every piece, syncs the file and renames it over `path`.
    package func commit() throws(FileError) {
        guard running else { throw FileError(path: path, reason: "the file was already committed or abandoned") }
        let code = stop()
        guard code == 0 else {
            replacement.abandon()
            throw FileError(path: path, errno: code)
        }
        try replacement.finish()
    }

    /// Stops writing and removes the temporary file: the file at `path` is
    /// left as it was.
    package func abandon() {
        guard running else { return }
        _ = stop(droppingWaitingPieces: true)
        replacement.abandon()
    }

    /// Lets the thread finish what is queued (or drop it) and waits for it;
    /// the first write's error, or 0.
    private func stop(droppingWaitingPieces: Bool = false) -> Int32 {
        running = false
        shared.finish(droppingWaitingPieces: droppingWaitingPieces)
        pthread_join(thread, nil)
        return shared.failure
    }

    /// The queue between the maker and the writing thread.
    private final class Shared: @unchecked Sendable {
        // @unchecked: every `var` below is read and written with `mutex` held,
        // except `failure`, which the owner reads after joining the thread.
        let fd: Int32
        // Allocated, not stored: a pthread object must not move, and `&` on a
        // stored property promises no stable address.
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var waiting: [[UInt8]] = []
        var written: [[UInt8]] = []
        var noMorePieces = false
        var failure: Int32 = 0

        init(fd: Int32) {
            self.fd = fd
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(changed, nil)
        }

        deinit {
            pthread_cond_destroy(changed)
            pthread_mutex_destroy(mutex)
            changed.deallocate()
            mutex.deallocate()
        }

        func append(_ piece: [UInt8]) {
            pthread_mutex_lock(mutex)
            while waiting.count >= StreamedFileWrite.piecesInFlight { pthread_cond_wait(changed, mutex) }
            waiting.append(piece)
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }

        func reusablePiece() -> [UInt8]? {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            guard var piece = written.popLast() else { return nil }
            piece.removeAll(keepingCapacity: true)
            return piece
        }

        func finish(droppingWaitingPieces: Bool) {
            pthread_mutex_lock(mutex)
            noMorePieces = true
            if droppingWaitingPieces { waiting.removeAll() }
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }

        func writeLoop() {
            var unsynced = 0
            while true {
                pthread_mutex_lock(mutex)
                while waiting.isEmpty && !noMorePieces { pthread_cond_wait(changed, mutex) }
                if waiting.isEmpty {
                    pthread_mutex_unlock(mutex)
                    return
                }
                let piece = waiting.removeFirst()
                let failed = failure != 0
                pthread_cond_broadcast(changed)
                pthread_mutex_unlock(mutex)
                // After a failure the rest is dropped: commit() reports the failure.
                var code: Int32 = 0
                if !failed {
                    if !FileIO.writeAll(fd: fd, piece) {
                        code = errno
                    } else {
                        unsynced += piece.count
                        if unsynced >= StreamedFileWrite.syncEvery {
                            // Starts the disk on what is written; commit's fsync is the one that counts.
                            if fdatasync(fd) != 0 { code = errno }
                            unsynced = 0
                        }
                    }
                }
                pthread_mutex_lock(mutex)
                if code != 0, failure == 0 { failure = code }
                if written.count < StreamedFileWrite.piecesInFlight { written.append(piece) }
                pthread_mutex_unlock(mutex)
            }
        }
    }
}
