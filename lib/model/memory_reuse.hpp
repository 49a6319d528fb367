#pragma once
// A process-wide allocator setting for applications that allocate and free a lot of short-lived
// memory: the planner and the automatic scheduler build, score and drop many schedules, and a
// sweep simulates schedule after schedule. By default glibc hands freed memory back to the
// system (blocks of 128 KiB and more, and the top of the heap), so the next schedule touches
// fresh pages again; on virtual machines a first touch of a page costs several microseconds, more
// than simulating a few hundred ops (docs/performance.md). The library never calls this itself:
// an application (apps/pipeplan, the benchmarks) chooses it at start.

namespace pipeplan {

/// Keeps freed memory in the process for reuse instead of returning it to the system: blocks up
/// to 32 MiB come from the heap, and the heap is not trimmed below 1 GiB. The resident size then
/// stays at its peak until the process ends. Does nothing where the C library is not glibc.
void keep_freed_memory_for_reuse();

}  // namespace pipeplan
