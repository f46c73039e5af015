import sharp, { type Sharp, type SharpInput, type SharpOptions } from 'sharp';
import { ServiceError } from '../errors.ts';

/** Default of ATELIER_IMAGE_TIMEOUT_S: longest one sharp pipeline of the request path may run, s. */
export const DEFAULT_IMAGE_TIMEOUT_S = 30;

/**
 * A sharp pipeline with the request path's time limit (issue 36 finding 4): sharp's `timeout`
 * (https://sharp.pixelplumbing.com/api-output#timeout), which libvips counts from when it starts on the
 * pipeline (not while it waits for a thread) and checks as it goes, ending the work with an error.
 * @param limitS whole seconds ≥ 1; 0 or undefined = no limit
 */
export function timedSharp(limitS: number | undefined, input?: SharpInput, options?: SharpOptions): Sharp {
  const img = input === undefined ? sharp(options) : sharp(input, options);
  return limitS ? img.timeout({ seconds: limitS }) : img;
}

/** Whether `e` is sharp's refusal of a pipeline that ran past its `timeout` ("timeout: 12% complete"). */
export function isSharpTimeout(e: unknown): boolean {
  return e instanceof Error && /^timeout: \d+% complete/.test(e.message);
}

/**
 * `conversion_failed` on `field`: one image operation ran past ATELIER_IMAGE_TIMEOUT_S and was stopped.
 * details: `limit` (the setting's name), `limit_s`.
 */
export function imageTimeoutError(field: string | null, limitS: number, cause: unknown): ServiceError {
  return new ServiceError(
    'conversion_failed',
    field,
    `image processing took longer than ${limitS} s, the limit of one image operation (ATELIER_IMAGE_TIMEOUT_S), and was stopped; nothing was stored`,
    { cause, details: { limit: 'ATELIER_IMAGE_TIMEOUT_S', limit_s: limitS } },
  );
}

/**
 * `op` with sharp's timeout refusal turned into `imageTimeoutError`; any other error unchanged.
 * @throws ServiceError conversion_failed on `field` when a pipeline of `op` timed out
 */
export async function mapImageTimeout<T>(op: () => Promise<T>, field: string | null, limitS: number | undefined): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (limitS && isSharpTimeout(e)) throw imageTimeoutError(field, limitS, e);
    throw e;
  }
}
