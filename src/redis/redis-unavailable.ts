// A Redis command that failed because Redis is unreachable answers as 503
// `unavailable` with a clear reason, never as a 500; our own refusals
// (ApiError) pass through unchanged.
import { ApiError } from '../api/api-error.js';

export async function orUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('unavailable', `the cluster store (Redis) is unreachable: ${(error as Error).message}`, { retryAfter: 1 });
  }
}
