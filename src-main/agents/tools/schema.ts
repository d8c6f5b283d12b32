import { z } from 'zod';
import { ToolError } from './root-guard';

/** The model-facing JSON schema of a zod input schema. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

/** Validates a tool input, turning zod issues into one line the model can correct. */
export function parseInput<T>(schema: z.ZodType<T>, input: Record<string, unknown>): T {
  if ('__malformed_input' in input) throw new ToolError('The tool input was not valid JSON; send the arguments again as a JSON object.');
  const r = schema.safeParse(input);
  if (!r.success) {
    throw new ToolError(`Invalid input: ${r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')}`);
  }
  return r.data;
}
