import Foundation
import GRDB

extension SQLiteStoreError {
    /// `error` from `action` on the database at `path`, as this type; an `SQLiteStoreError`
    /// passes through unchanged.
    static func wrapping(_ error: any Error, kind: Kind, action: String, path: String) -> SQLiteStoreError {
        if let error = error as? SQLiteStoreError {
            return error
        }
        return SQLiteStoreError(kind: kind, message: "call log database \(path): \(action) failed: \(reason(error))")
    }

    /// Why opening the database at `path` failed: a file that is not a database, else the file
    /// system's view (missing directory, permissions) when it explains the failure, else
    /// SQLite's own words.
    static func opening(_ error: any Error, path: String) -> SQLiteStoreError {
        if let error = error as? SQLiteStoreError {
            return error
        }
        let files = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        let explanation: String
        if let code = (error as? DatabaseError)?.resultCode, code == .SQLITE_NOTADB || code == .SQLITE_CORRUPT {
            explanation = "not an SQLite database, or corrupt (\(reason(error)))"
        } else if !files.fileExists(atPath: folder, isDirectory: &isDirectory) {
            explanation = "directory \(folder) does not exist"
        } else if !isDirectory.boolValue {
            explanation = "\(folder) is not a directory"
        } else if files.fileExists(atPath: path) && !files.isWritableFile(atPath: path) {
            explanation = "permission denied: the file is not writable"
        } else if !files.isWritableFile(atPath: folder) {
            explanation = "permission denied: cannot create files in \(folder) (WAL mode keeps -wal and -shm files there)"
        } else {
            explanation = reason(error)
        }
        return SQLiteStoreError(kind: .open, message: "cannot open call log database \(path): \(explanation)")
    }

    /// SQLite's result code and message for a GRDB error, else the error's description.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else {
            return String(describing: error)
        }
        return "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.extendedResultCode)")"
    }
}
