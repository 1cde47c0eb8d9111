// Builds ../plotly-site.min.js from entry.js: esbuild bundles it as plotly.js's own build does
// (its esbuild-config.js: an IIFE named Plotly, CSS inlined, `global` as window), then terser
// minifies it (two compress passes, names mangled; no unsafe transforms). Run: npm ci && node build.js
'use strict';
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');
const terser = require('terser');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');
const { environmentPlugin } = require('esbuild-plugin-environment');

// The map subplot's stylesheet (maplibre-gl.css, 83 KB) is imported by plotly.js's registry for
// every bundle; the site draws no map.
const noMapStylesheet = { name: 'no-map-stylesheet', setup(build) {
    build.onResolve({ filter: /maplibre-gl\.css$/ }, (args) => ({ path: args.path, namespace: 'empty' }));
    build.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '', loader: 'js' }));
} };

async function main() {
    const version = require('plotly.js/package.json').version;
    const bundled = await esbuild.build({
        entryPoints: [path.join(__dirname, 'entry.js')], write: false, format: 'iife', globalName: 'Plotly',
        bundle: true, minify: true, sourcemap: false, legalComments: 'none', target: 'es2020',
        plugins: [noMapStylesheet, InlineCSSPlugin(), environmentPlugin({ NODE_DEBUG: false })],
        alias: { stream: 'stream-browserify' }, define: { global: 'window', 'define.amd': 'false' },
        logLevel: 'warning',
    });
    const minified = await terser.minify(bundled.outputFiles[0].text, { compress: { passes: 2 }, mangle: true });
    const header = `/*! plotly.js ${version} (MIT licence: plotly-site.LICENSE), Prescient's partial bundle: `
        + 'scatter and bar traces; built by generator/site/assets/plotly-build/build.js */\n';
    fs.writeFileSync(path.join(__dirname, '..', 'plotly-site.min.js'), header + minified.code + '\n');
}

main().catch((error) => { console.error(error); process.exit(1); });
