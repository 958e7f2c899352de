import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { ROOT } from './test-server';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: Record<string, Record<string, unknown>> };

const doc = YAML.parse(fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')) as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc as object, 'openapi');

function deref(node: any): any {
  if (node && typeof node.$ref === 'string') {
    const pointer = node.$ref.replace(/^#\//, '').split('/');
    return deref(pointer.reduce((n: any, key: string) => n[key], doc));
  }
  return node;
}

/** The JSON schema OpenAPI documents for one response, as a $ref into the document. */
function responseSchemaRef(method: string, pathTemplate: string, status: number, contentType: string): string {
  const op = doc.paths[pathTemplate]?.[method.toLowerCase()];
  if (!op) throw new Error(`openapi.yaml has no ${method} ${pathTemplate}`);
  const raw = op.responses[String(status)] as any;
  if (!raw) throw new Error(`openapi.yaml documents no ${status} for ${method} ${pathTemplate}`);
  const response = deref(raw);
  if (!response.content?.[contentType]) throw new Error(`openapi.yaml documents no ${contentType} body for ${status} of ${method} ${pathTemplate}`);
  const responseRef = raw.$ref ? raw.$ref.replace(/^#/, '') : `/paths/${pathTemplate.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}`;
  return `openapi#${responseRef}/content/${contentType.replace(/\//g, '~1')}/schema`;
}

/** Fails with the validator's complaints when a real response does not match openapi.yaml. */
export function expectToMatchContract(method: string, pathTemplate: string, res: { status: number; body: unknown; headers: Headers }): void {
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
  const validate = ajv.getSchema(responseSchemaRef(method, pathTemplate, res.status, contentType));
  if (!validate) throw new Error('schema not found');
  if (!validate(res.body)) {
    throw new Error(`${method} ${pathTemplate} ${res.status} does not match openapi.yaml: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body, null, 2)}`);
  }
}

export const openapiDocument = doc;
