/**
 * Resolves a toolset's (or a server's) prompts, resources and resource templates: method names for
 * the generated client and server handlers (`get<Prompt>Prompt`, `read<Resource>`, `read<Template>`),
 * clashes with tool methods refused (renamed by hash for a pulled catalogue, whose names the user
 * cannot change), template variables read from the RFC 6570 template.
 */
import type { PromptDecl, ResourceDecl, ResourceTemplateDecl } from "@toolwright/dsl";
import { templateVariables } from "@toolwright/runtime/protocol";
import { isSafeIdentifier, pascalName, shortHash } from "../emit/names.js";
import { DesignError, type DesignLocation } from "../errors.js";
import type { IrSurface, IrTool } from "../ir/ir.js";

/** A toolset with nothing but tools. */
export const EMPTY_SURFACE: IrSurface = Object.freeze({ prompts: [], resources: [], resourceTemplates: [] });

/** The declarations a surface is resolved from (a toolset's, a server's, or a lock's). */
export interface SurfaceSource {
  readonly prompts?: readonly PromptDecl[] | undefined;
  readonly resources?: readonly ResourceDecl[] | undefined;
  readonly resourceTemplates?: readonly ResourceTemplateDecl[] | undefined;
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: V };

/**
 * Resolves one surface. With `pulled`, a method name that cannot be made or clashes gets a hash
 * suffix (the server chose the names); otherwise it is a `DesignError` naming the item.
 */
export function resolveSurface(decl: SurfaceSource, tools: readonly IrTool[], loc: DesignLocation, pulled = false): IrSurface {
  if (!decl.prompts?.length && !decl.resources?.length && !decl.resourceTemplates?.length) return EMPTY_SURFACE;
  const taken = new Set(tools.map((t) => t.memberName));
  // The suffix a clashing pulled item gets on its method and its type ("" when none is needed).
  const claim = (member: (suffix: string) => string, what: string, key: string): string => {
    let suffix = "";
    if (!isSafeIdentifier(member(suffix)) || taken.has(member(suffix))) {
      if (!pulled) {
        if (!isSafeIdentifier(member(suffix)))
          throw new DesignError(loc, `${what}: cannot make a method name from it (got ${JSON.stringify(member(suffix))})`);
        throw new DesignError(loc, `${what}: its method ${member(suffix)} clashes with another tool, prompt or resource`);
      }
      suffix = `_${shortHash(key)}`;
    }
    taken.add(member(suffix));
    return suffix;
  };
  const prompts = (decl.prompts ?? []).map((p) => {
    const pascal = pascalName(p.name);
    const suffix = claim((x) => `get${pascal}Prompt${x}`, `prompt ${JSON.stringify(p.name)}`, `prompt:${p.name}`);
    return Object.freeze({
      name: p.name,
      ...optional("title", p.title),
      description: p.description,
      arguments: p.arguments,
      memberName: `get${pascal}Prompt${suffix}`,
      typeName: `${pascal}PromptArgs${suffix}`,
    });
  });
  const resources = (decl.resources ?? []).map((r) => {
    const pascal = pascalName(r.name);
    const suffix = claim((x) => `read${pascal}${x}`, `resource ${JSON.stringify(r.uri)}`, `resource:${r.uri}`);
    return Object.freeze({
      uri: r.uri,
      name: r.name,
      description: r.description,
      ...optional("mimeType", r.mimeType),
      memberName: `read${pascal}${suffix}`,
    });
  });
  const resourceTemplates = (decl.resourceTemplates ?? []).map((t) => {
    let variables: string[];
    try {
      variables = templateVariables(t.uriTemplate);
    } catch (error) {
      throw new DesignError(loc, `resource template ${JSON.stringify(t.uriTemplate)}: ${(error as Error).message}`);
    }
    const pascal = pascalName(t.name);
    const suffix = claim((x) => `read${pascal}${x}`, `resource template ${JSON.stringify(t.uriTemplate)}`, `template:${t.uriTemplate}`);
    return Object.freeze({
      uriTemplate: t.uriTemplate,
      name: t.name,
      description: t.description,
      ...optional("mimeType", t.mimeType),
      variables: Object.freeze(variables),
      memberName: `read${pascal}${suffix}`,
      typeName: `${pascal}Params${suffix}`,
    });
  });
  return Object.freeze({
    prompts: Object.freeze(prompts),
    resources: Object.freeze(resources),
    resourceTemplates: Object.freeze(resourceTemplates),
  });
}
