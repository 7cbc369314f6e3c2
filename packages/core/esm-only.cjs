// This package is an ES module only: `require()` of it ends here, with a message that says so
// (instead of ERR_PACKAGE_PATH_NOT_EXPORTED). Load it with `import`, or from CommonJS with
// `await import(...)`; see docs/embedding.md in payrail's repository.
'use strict';

const { name } = require('./package.json');
const error = new Error(
  `${name} is ESM only: load it with import (from CommonJS: await import('${name}'))`,
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
