import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import document from '../../lib/openapi/openapi.json' with { type: 'json' };

/**
 * Checks an answer of the service against the API description: the status must be one the
 * operation declares, a JSON body must match the declared schema, declared headers must be there.
 * The local API helper runs it on every response, so no HTTP test passes with an undocumented answer.
 */

type Json = Record<string, unknown>;
type ResponseObject = { $ref?: string; headers?: Json; content?: { 'application/json'?: { schema: Json } } };

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<unknown, ValidateFunction>();

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

function resolve(response: ResponseObject): ResponseObject {
  if (!response.$ref) return response;
  const name = response.$ref.replace('#/components/responses/', '');
  return (document.components.responses as Record<string, ResponseObject>)[name] as ResponseObject;
}

function validatorFor(schema: Json): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    // The components travel with the schema, so that its `#/components/schemas/…` references resolve.
    validate = ajv.compile({ ...schema, components: { schemas: document.components.schemas } });
    validators.set(schema, validate);
  }
  return validate;
}

export interface CheckedResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Every way `response` departs from the description of `method path`; empty when it conforms. */
export function responseProblems(method: string, path: string, response: CheckedResponse): string[] {
  const pathname = path.split('?')[0] as string;
  const route = templates.find((candidate) => candidate.pattern.test(pathname));
  const operation = route
    ? (document.paths as Record<string, Record<string, { responses: Record<string, ResponseObject> }>>)[
        route.template
      ]?.[method.toLowerCase()]
    : undefined;
  // No route serves it: API Gateway's own 404, which the description does not cover.
  if (!operation) return response.status === 404 ? [] : [`${method} ${pathname} is not in the description`];
  const declared = operation.responses[String(response.status)];
  if (!declared) return [`${method} ${route?.template}: status ${response.status} is not documented`];
  const described = resolve(declared);
  const problems: string[] = [];
  for (const [header, declaration] of Object.entries(described.headers ?? {})) {
    if ((declaration as { required?: boolean }).required && !response.headers.has(header)) {
      problems.push(`header ${header} is missing`);
    }
  }
  const schema = described.content?.['application/json']?.schema;
  if (!schema) {
    if (response.text !== '') problems.push(`status ${response.status} has no body in the description`);
    return problems;
  }
  if (!response.headers.get('content-type')?.startsWith('application/json')) {
    problems.push(`content-type ${response.headers.get('content-type')} is not application/json`);
  }
  const validate = validatorFor(schema);
  if (!validate(response.body)) {
    for (const error of validate.errors ?? []) problems.push(`body${error.instancePath}: ${error.message}`);
  }
  return problems;
}

export function assertConformsToDescription(method: string, path: string, response: CheckedResponse): void {
  const problems = responseProblems(method, path, response);
  if (problems.length > 0) {
    throw new Error(
      `The answer to ${method} ${path} (${response.status}) departs from the API description:\n  ${problems.join('\n  ')}\n  body: ${response.text.slice(0, 500)}`,
    );
  }
}
