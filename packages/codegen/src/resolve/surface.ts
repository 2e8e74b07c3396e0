/**
 * Resolves a toolset's prompts, resources and resource templates: method names for the generated
 * client (`get<Prompt>Prompt`, `read<Resource>`, `read<Template>`), clashes with tool methods
 * refused, template variables read from the RFC 6570 template.
 */
import type { ToolsetDecl } from "@toolwright/dsl";
import { templateVariables } from "@toolwright/runtime";
import { isSafeIdentifier, pascalName } from "../emit/names.js";
import { DesignError, type DesignLocation } from "../errors.js";
import type { IrSurface, IrTool } from "../ir/ir.js";

/** A toolset with nothing but tools. */
export const EMPTY_SURFACE: IrSurface = Object.freeze({ prompts: [], resources: [], resourceTemplates: [] });

/** Resolves the surface of one toolset declaration. */
export function resolveSurface(decl: ToolsetDecl, tools: readonly IrTool[], loc: DesignLocation): IrSurface {
  if (!decl.prompts && !decl.resources && !decl.resourceTemplates) return EMPTY_SURFACE;
  const taken = new Set(tools.map((t) => t.memberName));
  const claim = (member: string, what: string) => {
    if (!isSafeIdentifier(member)) throw new DesignError(loc, `${what}: cannot make a method name from it (got ${JSON.stringify(member)})`);
    if (taken.has(member)) throw new DesignError(loc, `${what}: its method ${member} clashes with another tool, prompt or resource`);
    taken.add(member);
    return member;
  };
  const prompts = (decl.prompts ?? []).map((p) => {
    const pascal = pascalName(p.name);
    return Object.freeze({
      name: p.name,
      description: p.description,
      arguments: p.arguments,
      memberName: claim(`get${pascal}Prompt`, `prompt ${JSON.stringify(p.name)}`),
      typeName: `${pascal}PromptArgs`,
    });
  });
  const resources = (decl.resources ?? []).map((r) =>
    Object.freeze({
      uri: r.uri,
      name: r.name,
      description: r.description,
      memberName: claim(`read${pascalName(r.name)}`, `resource ${JSON.stringify(r.uri)}`),
    }),
  );
  const resourceTemplates = (decl.resourceTemplates ?? []).map((t) => {
    let variables: string[];
    try {
      variables = templateVariables(t.uriTemplate);
    } catch (error) {
      throw new DesignError(loc, `resource template ${JSON.stringify(t.uriTemplate)}: ${(error as Error).message}`);
    }
    const pascal = pascalName(t.name);
    return Object.freeze({
      uriTemplate: t.uriTemplate,
      name: t.name,
      description: t.description,
      variables: Object.freeze(variables),
      memberName: claim(`read${pascal}`, `resource template ${JSON.stringify(t.uriTemplate)}`),
      typeName: `${pascal}Params`,
    });
  });
  return Object.freeze({
    prompts: Object.freeze(prompts),
    resources: Object.freeze(resources),
    resourceTemplates: Object.freeze(resourceTemplates),
  });
}
