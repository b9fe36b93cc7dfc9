// How fast BullMQ notices a worker that died holding a job (kill -9), for
// every queue of ours (chunks, finish, webhooks). BullMQ's defaults take
// ~60 s and fail a job on its second stall.
//
// A job's lock lasts LOCK_MS unless its worker renews it (every half of
// it): the longest a killed node holds on to its job. A node whose event
// loop stalls for longer loses the job too, and it may then run twice (a
// chunk records once; a webhook attempt may repeat, same delivery id).
// Workers look for jobs whose lock lapsed every STALLED_CHECK_MS, and a job
// goes back to wait at the first check after its lock lapsed that had
// already seen it active: another node runs it within about
// LOCK_MS + 2 * STALLED_CHECK_MS. A stall never fails a job: only its own
// errors use up its attempts.
const LOCK_MS = 4_000;
const STALLED_CHECK_MS = 2_000;

export const STALL_SETTINGS = {
  lockDuration: LOCK_MS,
  stalledInterval: STALLED_CHECK_MS,
  maxStalledCount: Number.MAX_SAFE_INTEGER,
} as const;
