// Every file of the support layer (and every layer above it) sees the C library and the Foundation subset through these re-exports.
// FoundationEssentials avoids loading ICU: a faster start and a much smaller static binary.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
@_exported @preconcurrency import Glibc
