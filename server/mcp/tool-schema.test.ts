import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { UuidSchema } from '../../shared/schemas/common.ts';
import { compactArgsSchema, routerInputSchema, type ListingMemory } from './tool-schema.ts';

const Kind = z.enum(['a', 'b', 'c', 'd', 'e', 'f', 'g']);

describe('compact tool schemas for tools/list', () => {
  it('writes UUIDs as format uuid, nullable as a type list, enums without type, and leaves deprecated and validation-only keys out', () => {
    const schema = z
      .object({
        id: UuidSchema,
        note: z.string().min(1).max(10).nullable().optional().describe('a note'),
        kind: Kind.nullable().optional(),
        old: UuidSchema.optional().describe('deprecated alias').meta({ deprecated: true }),
        limit: z.number().int().min(1).max(50).default(50),
      })
      .strict();
    expect(compactArgsSchema(schema)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        note: { description: 'a note', type: ['string', 'null'] },
        kind: { enum: ['a', 'b', 'c', 'd', 'e', 'f', 'g', null] },
        limit: { default: 50, type: 'integer', minimum: 1, maximum: 50 },
      },
      required: ['id'],
    });
    // brief (panel-only tools): names and JSON types only
    expect(compactArgsSchema(schema, false).properties).toEqual({
      id: { type: 'string', format: 'uuid' },
      note: { type: ['string', 'null'] },
      kind: { type: ['string', 'null'] },
      limit: { type: 'integer' },
    });
  });

  it('several actions become an anyOf of objects titled with the action, typed object at the top', () => {
    const s = routerInputSchema([
      { router: 'svc_x', action: 'one', args: z.object({ a: z.string() }) },
      { router: 'svc_x', action: 'two', args: z.object({ b: z.number() }) },
    ] as never);
    expect(s).toEqual({
      type: 'object',
      properties: {
        action: { enum: ['one', 'two'] },
        args: {
          type: 'object',
          anyOf: [
            { title: 'one', properties: { a: { type: 'string' } }, required: ['a'] },
            { title: 'two', properties: { b: { type: 'number' } }, required: ['b'] },
          ],
        },
      },
      required: ['action'],
    });
  });

  it('writes a description and a long enum once per listing; later tools refer to the first', () => {
    const args = z.object({ q: z.string().describe('words'), kind: Kind.optional() });
    const memory: ListingMemory = { described: new Set(), enums: new Map() };
    const first = routerInputSchema([{ router: 'svc_first', action: 'find', args }] as never, { memory });
    const second = routerInputSchema([{ router: 'svc_second', action: 'pick', args }] as never, { memory });
    const props = (s: Record<string, unknown>) => (s.properties as { args: { properties: Record<string, unknown> } }).args.properties;
    expect(props(first)).toEqual({ q: { type: 'string', description: 'words' }, kind: { enum: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] } });
    expect(props(second)).toEqual({ q: { type: 'string' }, kind: { type: 'string', description: 'values as in svc_first' } });
  });
});
