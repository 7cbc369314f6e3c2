import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, fill, html, jsonScriptContent, ownSource } from './markup.js';

describe('html', () => {
  it('escapes interpolated strings, keeps nested markup, joins arrays, drops nothing else', () => {
    const item = (s: string) => html`<li>${s}</li>`;
    const out = html`<ul title="${'a"b'}">${['<x>', "'y'"].map(item)}${null}${undefined}${3}</ul>`;
    expect(out.html).toBe('<ul title="a&quot;b"><li>&lt;x&gt;</li><li>&#39;y&#39;</li>3</ul>');
    expect(html`${ownSource('<b>')}`.html).toBe('<b>');
  });

  it('leaves no character that could open a tag or end an attribute', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const escaped = escapeHtml(s);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(
          escaped.replace(
            /&(lt|gt|quot|#39|amp);/g,
            (m) =>
              ({ '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' })[m] ?? m,
          ),
        ).toBe(s);
      }),
    );
  });
});

describe('fill', () => {
  it('escapes the dictionary text and fills each placeholder with escaped text or our markup', () => {
    const out = fill('Send <{amount}> on {network} & {unknown}', {
      amount: html`<span id="a">${'1<2'}</span>`,
      network: '"TRON"',
    });
    expect(out.html).toBe(
      'Send &lt;<span id="a">1&lt;2</span>&gt; on &quot;TRON&quot; &amp; {unknown}',
    );
    // A placeholder named like an Object property is not filled from the prototype.
    expect(fill('{constructor}', {}).html).toBe('{constructor}');
  });
});

describe('jsonScriptContent', () => {
  it('round-trips any value and never contains a character that could end the script element', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        const subject = { value, text: `${text}</script><!--\u2028` };
        const content = jsonScriptContent(subject).html;
        expect(content).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(content)).toEqual(JSON.parse(JSON.stringify(subject)));
      }),
    );
  });
});
