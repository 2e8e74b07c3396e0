/**
 * Prompts, resources and resource templates declared in a toolset (what a server offers besides
 * tools), for typed `get<Prompt>Prompt(args)`, `read<Resource>()` and template readers.
 */
import { fail, isPlainObject, show } from "./errors.js";

/** One prompt argument. */
export interface PromptArgumentDecl {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
}

/** A prompt a server offers. */
export interface PromptDecl {
  readonly kind: "prompt";
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgumentDecl[];
}

/** A resource with a fixed URI; `name` names the generated reader. */
export interface ResourceDecl {
  readonly kind: "resource";
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** Resources behind an RFC 6570 URI template (levels 1-3); its variables become the reader's parameters. */
export interface ResourceTemplateDecl {
  readonly kind: "resource-template";
  readonly uriTemplate: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** What `t.prompt`, `t.resource` and `t.resourceTemplate` take besides the name or URI. */
export interface PromptDefinition {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgumentDecl[];
}
export interface ResourceDefinition {
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** The surface declarations of one toolset. */
export interface SurfaceDecls {
  readonly prompts: readonly PromptDecl[];
  readonly resources: readonly ResourceDecl[];
  readonly resourceTemplates: readonly ResourceTemplateDecl[];
}

function strings(where: string, definition: { readonly [key: string]: unknown }, keys: readonly string[], allowed: readonly string[]) {
  for (const key of Object.keys(definition))
    if (!allowed.includes(key)) fail(where, `unknown field "${key}" (allowed: ${allowed.join(", ")})`);
  for (const key of keys)
    if (definition[key] !== undefined && typeof definition[key] !== "string")
      fail(where, `${key} must be a string; got ${show(definition[key])}`);
}

/** Collects and checks surface declarations; duplicate names, URIs or bad shapes fail naming where. */
export function createSurfaceCollector(where: string) {
  const prompts: PromptDecl[] = [];
  const resources: ResourceDecl[] = [];
  const resourceTemplates: ResourceTemplateDecl[] = [];
  const seen = new Set<string>();
  const once = (key: string, what: string) => {
    if (seen.has(key)) fail(where, `${what} is declared twice`);
    seen.add(key);
  };
  return {
    prompt(name: string, definition: PromptDefinition = {}): void {
      const at = `${where}, prompt ${show(name)}`;
      if (typeof name !== "string" || name === "") fail(where, `the prompt name must be a non-empty string; got ${show(name)}`);
      if (!isPlainObject(definition)) fail(at, "the definition must be an object such as { description, arguments }");
      strings(at, definition as { [key: string]: unknown }, ["title", "description"], ["title", "description", "arguments"]);
      const args = definition.arguments ?? [];
      if (!Array.isArray(args)) fail(at, "arguments must be an array of { name, description?, required? }");
      const argNames = new Set<string>();
      for (const arg of args) {
        if (!isPlainObject(arg) || typeof arg.name !== "string" || arg.name === "")
          fail(at, `every argument needs a name; got ${show(arg)}`);
        if (arg.required !== undefined && typeof arg.required !== "boolean") fail(at, `argument ${arg.name}: required must be a boolean`);
        if (argNames.has(arg.name)) fail(at, `argument ${arg.name} is declared twice`);
        argNames.add(arg.name);
      }
      once(`prompt:${name}`, `prompt ${show(name)}`);
      prompts.push(
        Object.freeze({ ...definition, kind: "prompt", name, arguments: Object.freeze(args.map((a) => Object.freeze({ ...a }))) }),
      );
    },
    resource(uri: string, definition: ResourceDefinition): void {
      const at = `${where}, resource ${show(uri)}`;
      if (typeof uri !== "string" || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri))
        fail(where, `a resource needs an absolute URI; got ${show(uri)}`);
      if (!isPlainObject(definition) || typeof definition.name !== "string" || definition.name === "")
        fail(at, 'the definition needs a name, e.g. { name: "readme" }');
      strings(at, definition as unknown as { [key: string]: unknown }, ["description", "mimeType"], ["name", "description", "mimeType"]);
      once(`resource:${uri}`, `resource ${show(uri)}`);
      resources.push(Object.freeze({ ...definition, kind: "resource", uri }));
    },
    resourceTemplate(uriTemplate: string, definition: ResourceDefinition): void {
      const at = `${where}, resource template ${show(uriTemplate)}`;
      if (typeof uriTemplate !== "string" || !uriTemplate.includes("{"))
        fail(where, `a resource template needs {variables}; got ${show(uriTemplate)}`);
      if (!isPlainObject(definition) || typeof definition.name !== "string" || definition.name === "")
        fail(at, 'the definition needs a name, e.g. { name: "file" }');
      strings(at, definition as unknown as { [key: string]: unknown }, ["description", "mimeType"], ["name", "description", "mimeType"]);
      once(`template:${uriTemplate}`, `resource template ${show(uriTemplate)}`);
      resourceTemplates.push(Object.freeze({ ...definition, kind: "resource-template", uriTemplate }));
    },
    /** The non-empty lists, as fields of a toolset or server declaration. */
    fields(): Partial<SurfaceDecls> {
      return {
        ...(prompts.length > 0 ? { prompts: Object.freeze(prompts) } : {}),
        ...(resources.length > 0 ? { resources: Object.freeze(resources) } : {}),
        ...(resourceTemplates.length > 0 ? { resourceTemplates: Object.freeze(resourceTemplates) } : {}),
      };
    },
  };
}
