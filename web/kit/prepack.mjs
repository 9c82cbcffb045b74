// Fills this package before `npm pack` (or `npm publish`) packs it: the kit itself
// (web/kit.js, the one source, which the browser client also loads), the protocol's
// generated declarations (web/protocol.d.ts), the licences, and kit.d.ts, the kit's own
// declarations, emitted by TypeScript from the kit's JSDoc. The copies are not
// committed (.gitignore); tests/e2e/js_kit.rs packs the package and uses it.

import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.join(here, '..');
const root = path.join(web, '..');

for (const [from, to] of [
  [path.join(web, 'kit.js'), 'kit.js'],
  [path.join(web, 'protocol.d.ts'), 'protocol.d.ts'],
  [path.join(root, 'LICENSE-MIT'), 'LICENSE-MIT'],
  [path.join(root, 'LICENSE-APACHE'), 'LICENSE-APACHE'],
]) {
  copyFileSync(from, path.join(here, to));
}

let ts;
try {
  ts = createRequire(import.meta.url)('typescript');
} catch {
  console.error('prepack: TypeScript is needed to write kit.d.ts: run `npm ci` in web/ first');
  process.exit(1);
}
rmSync(path.join(here, 'kit.d.ts'), { force: true });
const program = ts.createProgram([path.join(here, 'kit.js')], {
  allowJs: true,
  checkJs: true,
  declaration: true,
  emitDeclarationOnly: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  outDir: here,
});
const result = program.emit();
const problems = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
if (problems.length > 0 || result.emitSkipped) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => here, getNewLine: () => '\n' };
  console.error(ts.formatDiagnostics(problems, host));
  process.exit(1);
}
