import { z } from 'zod';

/** An environment flag: 0/1, true/false or yes/no, as a boolean. */
export const bool = z.enum(['0', '1', 'true', 'false', 'yes', 'no']).transform((v) => v === '1' || v === 'true' || v === 'yes');
/** An environment integer in [min, max], coerced from its string. */
export const int = (min: number, max: number) => z.coerce.number().int('must be an integer').min(min).max(max);
