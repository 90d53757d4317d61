// ts_hooks.mjs -- node module hooks that run DevTools' TypeScript sources
// as they are shipped in chrome-devtools-frontend (front_end/ holds .ts
// files imported as '.js'): a '.js' import that does not exist resolves to
// the '.ts' beside it, and a '.ts' file is compiled by typescript's
// transpileModule (types erased, nothing checked) when it is loaded.
// One module of the worker's imports is made by DevTools' build, not
// shipped: core/i18n/locales.js (generate-locales-js.js beside it writes
// it); it is given here as that script writes it for en-US alone.
import {existsSync, readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';

const LOCALES_JS = `
export const LOCALES = ['en-US'];
export const BUNDLED_LOCALES = ['en-US'];
export const DEFAULT_LOCALE = 'en-US';
export const REMOTE_FETCH_PATTERN = '';
export const LOCAL_FETCH_PATTERN = '';
`;

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const url = new URL(specifier, context.parentURL);
    if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
      if (url.pathname.endsWith('/front_end/core/i18n/locales.js'))
        return {url: 'data:text/javascript,' + encodeURIComponent(LOCALES_JS), format: 'module', shortCircuit: true};
      const ts = new URL(url.href.replace(/\.js$/, '.ts'));
      if (existsSync(fileURLToPath(ts))) return {url: ts.href, format: 'module', shortCircuit: true};
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = readFileSync(fileURLToPath(url), 'utf8');
  const out = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      useDefineForClassFields: true,
      sourceMap: false,
    },
  });
  return {format: 'module', source: out.outputText, shortCircuit: true};
}
