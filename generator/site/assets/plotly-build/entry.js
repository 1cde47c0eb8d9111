'use strict';
// The site's plotly.js: plotly.js's own core (src/core.js) registering only what the site's charts
// use (generator/site/charts.py, site_src/docs/assets/prescient.js) and the bar trace; scatter is the
// core's one trace. Left out beside the other traces: annotations3d, images, sliders, rangeslider,
// grid, colorbar (registered), the calendars, the map subplot's stylesheet, the Plots/Fx/Snapshot
// extras. A component the core asks for and finds unregistered is a no-op in plotly.js's registry.
exports.version = require('plotly.js/src/version').version;
require('native-promise-only');
require('plotly.js/build/plotcss');

var Registry = require('plotly.js/src/registry');
var register = exports.register = Registry.register;

var plotApi = require('plotly.js/src/plot_api');
Object.keys(plotApi).forEach(function (name) {
    if (name.charAt(0) !== '_') exports[name] = plotApi[name];
    register({ moduleType: 'apiMethod', name: name, fn: plotApi[name] });
});

register(require('plotly.js/src/traces/scatter'));
register([
    require('plotly.js/src/components/annotations'),
    require('plotly.js/src/components/selections'),
    require('plotly.js/src/components/shapes'),
    require('plotly.js/src/components/updatemenus'),
    require('plotly.js/src/components/rangeselector'),
    require('plotly.js/src/components/errorbars'),
    require('plotly.js/src/components/colorscale'),
    require('plotly.js/src/components/legend'), // after shapes, as in plotly.js's core
    require('plotly.js/src/components/fx'), // after legend
    require('plotly.js/src/components/modebar')
]);
register([require('plotly.js/src/locale-en'), require('plotly.js/src/locale-en-us')]);
register(require('plotly.js/src/traces/bar'));

exports.Icons = require('plotly.js/src/fonts/ploticon');
