// How fast BullMQ notices a worker that died holding a job (kill -9): its
// lock lapses after LOCK_MS and another worker's stalled check, every
// STALLED_CHECK_MS, puts the job back, so it runs again within ~10 s (the
// defaults take ~60 s). A stall never fails a job: only its own errors do.
export const STALL_SETTINGS = {
  lockDuration: 6000,
  stalledInterval: 3000,
  maxStalledCount: Number.MAX_SAFE_INTEGER,
} as const;
