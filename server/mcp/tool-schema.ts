import { z } from 'zod';
import type { ActionDef } from '../../shared/actions.ts';
import { UuidSchema } from '../../shared/schemas/common.ts';

type Json = Record<string, unknown>;

/** Keys that only repeat what the dispatcher enforces anyway (its errors name the field and the rule). */
const DROPPED_KEYS = new Set(['$schema', 'additionalProperties', 'pattern', 'minLength', 'maxLength', 'title']);
/** Also left out of a brief schema (panel-only tools). */
const BRIEF_DROPPED_KEYS = new Set(['default', 'minimum', 'maximum', 'minItems', 'maxItems']);

/**
 * The compact JSON Schema (draft 2020-12) of an action's args for tools/list: input view (defaulted
 * fields optional), UUIDs as `format: "uuid"` instead of a 73-character pattern, nullable as a type
 * list, no `type` beside an `enum`, descriptions only on arguments (not on array items or union
 * members), no deprecated arguments (they stay accepted and documented in svc_discover) and no keys that
 * only restate validation the dispatcher does with a precise error (string lengths, patterns,
 * `additionalProperties: false`). Names, types, enums, defaults, numeric and array bounds stay. The
 * full schema is `inputJsonSchema` (svc_discover).
 */
export function compactArgsSchema(schema: z.ZodType, describeArgs = true): Json {
  // describeArgs false = brief: argument names and JSON types only (enums become strings, no bounds)
  const full = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      if (ctx.zodSchema === UuidSchema) {
        const js = ctx.jsonSchema as Json;
        delete js.pattern;
        delete js.description;
        js.format = 'uuid';
      }
      // an absolute http(s) URL: the name and description say so; the dispatcher checks it
      if ((ctx.jsonSchema as Json).format === 'uri') delete (ctx.jsonSchema as Json).format;
    },
  }) as Json;
  return compact(full, false, describeArgs) as Json;
}

function compact(node: unknown, isArgument: boolean, describeArgs: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n, false, describeArgs));
  if (!node || typeof node !== 'object') return node;
  const src = node as Json;
  const nullable = nullableMember(src);
  if (nullable) {
    const inner = compact(nullable, isArgument, describeArgs) as Json;
    const out: Json = {
      ...(isArgument && describeArgs && typeof src.description === 'string' ? { description: src.description } : {}),
      ...inner,
    };
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    else if (typeof out.type === 'string') out.type = [out.type, 'null'];
    return out;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(src)) {
    if (DROPPED_KEYS.has(k)) continue;
    if (k === 'description' && !(isArgument && describeArgs)) continue;
    // brief (panel-only tools, called by our own typed panel code): names and types only
    if (!describeArgs && BRIEF_DROPPED_KEYS.has(k)) continue;
    if (!describeArgs && k === 'enum') {
      out.type = 'string';
      continue;
    }
    if (k === 'type' && Array.isArray(src.enum)) continue;
    if (k === 'properties') {
      const props = Object.entries(v as Json).filter(([, p]) => !(p as Json).deprecated);
      out.properties = Object.fromEntries(props.map(([name, p]) => [name, compact(p, true, describeArgs)]));
      continue;
    }
    if (k === 'required') {
      const kept = (v as string[]).filter((r) => !((src.properties as Json | undefined)?.[r] as Json | undefined)?.deprecated);
      if (kept.length) out.required = kept;
      continue;
    }
    out[k] = compact(v, false, describeArgs);
  }
  return out;
}

/** The non-null member of `anyOf: [X, {type: "null"}]` (zod's `.nullable()`), else undefined. */
function nullableMember(node: Json): Json | undefined {
  const any = node.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return undefined;
  const [a, b] = any as Json[];
  if (b?.type === 'null' && a && a.type !== 'null') return a;
  if (a?.type === 'null' && b && b.type !== 'null') return b;
  return undefined;
}

/**
 * The `inputSchema` of a router tool: `{action, args}` where `action` is the enum of the router's actions
 * and `args` is the one action's args object, or for several actions an `anyOf` of per-action objects
 * (each titled with its action name; the tool description says what each does), so every argument name is visible to a
 * host that ignores conditional schemas. Subschemas repeated within the tool (scope ids, search filters)
 * are written once under `$defs` and referenced.
 */
export function routerInputSchema(
  actions: readonly Pick<ActionDef, 'router' | 'action' | 'args'>[],
  opts: { memory?: ListingMemory | undefined; describeArgs?: boolean } = {},
): Json {
  const one = (a: z.ZodType): Json => compactArgsSchema(a, opts.describeArgs ?? true);
  // `type: "object"` beside the `anyOf`: clients that coerce arguments by their JSON type (MCP Inspector
  // CLI parses a string to an object only when the schema says object) see it without reading branches.
  const branch = (a: Pick<ActionDef, 'action' | 'args'>): Json => {
    const { type: _object, ...rest } = one(a.args);
    return { title: a.action, ...rest };
  };
  let args: Json = actions.length === 1 ? one(actions[0]!.args) : { type: 'object', anyOf: actions.map(branch) };
  if (opts.memory && actions[0]) args = shareAcrossTools(args, opts.memory, actions[0].router) as Json;
  const { node, defs } = shareRepeated(args);
  return {
    type: 'object',
    properties: { action: { enum: actions.map((a) => a.action) }, args: node },
    required: ['action'],
    ...(Object.keys(defs).length ? { $defs: defs } : {}),
  };
}

/** What earlier tools of one tools/list already spelled out (see `shareAcrossTools`). */
export interface ListingMemory {
  /** `name:JSON` of argument schemas whose description was written */
  described: Set<string>;
  /** value list (JSON, nulls left out) of long enums → the tool that listed it */
  enums: Map<string, string>;
}

/** An enum of this many values or more is listed once per tools/list; later tools refer to it. */
const SHARED_ENUM_MIN_VALUES = 6;

/**
 * Write shared things once per tools/list (JSON Schema cannot reference another tool's schema, and the
 * model reads the list in order): an argument whose exact schema an earlier tool described loses its
 * description, and a long enum an earlier tool listed becomes a string "as in <tool>" (the dispatcher
 * still validates the values). svc_asset_select repeats svc_asset_library search's filters this way.
 * @param memory what earlier tools wrote; updated
 * @param tool the tool being written
 */
function shareAcrossTools(node: unknown, memory: ListingMemory, tool: string): unknown {
  if (Array.isArray(node)) return node.map((n) => shareAcrossTools(n, memory, tool));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k !== 'properties') {
      out[k] = shareAcrossTools(v, memory, tool);
      continue;
    }
    out.properties = Object.fromEntries(
      Object.entries(v as Json).map(([name, p]) => {
        let schema = p as Json;
        if (typeof schema.description === 'string') {
          const key = `${name}:${JSON.stringify(schema)}`;
          if (memory.described.has(key)) {
            const { description: _written, ...rest } = schema;
            schema = rest;
          } else memory.described.add(key);
        }
        if (Array.isArray(schema.enum)) {
          const values = (schema.enum as unknown[]).filter((x) => x !== null);
          if (values.length >= SHARED_ENUM_MIN_VALUES) {
            const key = JSON.stringify(values);
            const first = memory.enums.get(key);
            if (first === undefined) memory.enums.set(key, tool);
            else if (first !== tool) {
              const { enum: _listed, ...rest } = schema;
              const nullable = values.length !== (schema.enum as unknown[]).length;
              schema = {
                ...rest,
                type: nullable ? ['string', 'null'] : 'string',
                description: `${typeof rest.description === 'string' ? `${rest.description}; ` : ''}values as in ${first}`,
              };
            }
          }
        }
        return [name, shareAcrossTools(schema, memory, tool)];
      }),
    );
  }
  return out;
}

/** Smallest subschema worth a `$defs` entry: a reference (`{"$ref":"#/$defs/x"}`) costs about 20 bytes. */
const MIN_SHARED_BYTES = 80;

/**
 * Move property schemas that occur more than once (same JSON) into `$defs`, named after the property.
 */
function shareRepeated(root: Json): { node: Json; defs: Record<string, Json> } {
  const seen = new Map<string, { count: number; name: string }>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === 'properties') {
        for (const [name, s] of Object.entries(v as Json)) {
          const key = JSON.stringify(s);
          if (key.length >= MIN_SHARED_BYTES) {
            const hit = seen.get(key);
            if (hit) hit.count++;
            else seen.set(key, { count: 1, name });
          }
          visit(s);
        }
      } else visit(v);
    }
  };
  visit(root);
  const defs: Record<string, Json> = {};
  const refOf = new Map<string, string>();
  for (const [key, { count, name }] of seen) {
    if (count < 2) continue;
    let id = name;
    for (let i = 2; Object.hasOwn(defs, id); i++) id = `${name}_${i}`;
    defs[id] = JSON.parse(key) as Json;
    refOf.set(key, id);
  }
  const replace = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(replace);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      out[k] =
        k === 'properties'
          ? Object.fromEntries(
              Object.entries(v as Json).map(([name, s]) => {
                const id = refOf.get(JSON.stringify(s));
                return [name, id ? { $ref: `#/$defs/${id}` } : replace(s)];
              }),
            )
          : replace(v);
    }
    return out;
  };
  return { node: replace(root) as Json, defs };
}
