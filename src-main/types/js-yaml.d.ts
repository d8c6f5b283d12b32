/**
 * The part of js-yaml 4 that Flightdeck uses (yaml-fast.ts); the package ships no types and
 * this is smaller than @types/js-yaml.
 */
declare module 'js-yaml' {
  export interface TypeOptions {
    kind: 'scalar' | 'sequence' | 'mapping';
    resolve?: (data: string | null) => boolean;
    construct?: (data: string | null) => unknown;
  }
  export class Type {
    constructor(tag: string, options: TypeOptions);
  }
  export class Schema {
    extend(types: { implicit?: Type[]; explicit?: Type[] }): Schema;
  }
  export const FAILSAFE_SCHEMA: Schema;
  export interface LoadOptions {
    schema?: Schema;
    filename?: string;
    json?: boolean;
  }
  export function load(text: string, options?: LoadOptions): unknown;
}
