#include "assets.h"

namespace umwelt::publish_internal {

// Design tokens from the reference page: light by default, dark when the
// reader's system asks for it, either forced by data-theme on <html>.
const char* const kPageCss = R"css(
:root{--ink:#1a1a2e;--ink2:#555770;--faint:#8a8a9a;--accent:#8b2500;--accent-hover:#c4530a;
--surface:#faf9f6;--raised:#f0eeea;--code:#f5f3ef;--rule:#d4d0c8;
--open-fg:#9a4a00;--open-bg:#fdf0d8;--done-fg:#17663a;--done-bg:#dcf3e4;color-scheme:light}
:root[data-theme=dark]{--ink:#d8d5cf;--ink2:#9e9bab;--faint:#6e6b7b;--accent:#d4764e;--accent-hover:#e8956e;
--surface:#1a1a24;--raised:#242430;--code:#20202c;--rule:#33333f;
--open-fg:#f0b36a;--open-bg:#3a2a14;--done-fg:#7fd4a0;--done-bg:#173224;color-scheme:dark}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--ink:#d8d5cf;--ink2:#9e9bab;--faint:#6e6b7b;
--accent:#d4764e;--accent-hover:#e8956e;--surface:#1a1a24;--raised:#242430;--code:#20202c;--rule:#33333f;
--open-fg:#f0b36a;--open-bg:#3a2a14;--done-fg:#7fd4a0;--done-bg:#173224;color-scheme:dark}}
*{box-sizing:border-box}
html{background:var(--surface)}
body{margin:0;background:var(--surface);color:var(--ink);font:16px/1.7 "Helvetica Neue",Helvetica,Arial,sans-serif;
-webkit-font-smoothing:antialiased}
main{max-width:650px;margin:0 auto;padding:3rem 1.25rem 4rem}
@media (min-width:1060px){main{margin-left:calc(50% - 455px)}}
h1,h2,h3,h4{font-family:Palatino,"Palatino Linotype","Book Antiqua","URW Palladio L",Georgia,serif;
line-height:1.25;color:var(--ink)}
h1.title{font-size:2rem;font-weight:600;letter-spacing:-0.015em;margin:0 0 .4rem}
h2{font-size:1.35rem;font-weight:600;margin:2.2rem 0 .6rem}
h3{font-size:1.1rem;font-weight:600;margin:1.6rem 0 .4rem}
.byline{margin:0 0 1.8rem;color:var(--ink2);font-size:.88rem}
.byline time{border-bottom:1px dotted var(--faint);cursor:help}
.prompt{position:relative;margin:0 0 2.2rem;padding:1rem 1.2rem 1rem 2.6rem;background:var(--raised);
border-radius:6px;overflow:hidden}
.prompt::before{content:"?";position:absolute;left:-.1rem;top:50%;transform:translateY(-52%);
font:700 5rem/1 Palatino,Georgia,serif;color:var(--ink);opacity:.08;pointer-events:none}
.prompt p{margin:0;font:italic 1.15rem/1.55 Palatino,"Palatino Linotype",Georgia,serif;color:var(--ink)}
a{color:var(--accent);text-decoration:none;border-bottom:1px solid transparent}
a:hover,a:focus{color:var(--accent-hover);border-bottom-color:currentColor}
code{font:.85em ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;background:var(--code);
padding:.1em .3em;border-radius:3px}
pre{background:var(--code);padding:.8rem 1rem;border-radius:6px;overflow-x:auto}
pre code{padding:0;background:none}
blockquote{margin:1rem 0;padding:0 0 0 1rem;border-left:3px solid var(--rule);color:var(--ink2)}
table{border-collapse:collapse;margin:1.2rem 0;width:100%;font-variant-numeric:tabular-nums;font-size:.92rem;
border-top:2px solid var(--ink);border-bottom:1.5px solid var(--ink)}
th{text-align:left;font-weight:600;border-bottom:1px solid var(--ink);padding:.35rem .6rem}
td{padding:.3rem .6rem;vertical-align:top}
hr{border:0;border-top:1px solid var(--rule);margin:2rem 0}
.math-display{overflow-x:auto;margin:1rem 0;text-align:center}
code.math{color:var(--ink2)}
figure.activity{display:flex;flex-wrap:wrap;align-items:center;gap:.3rem .8rem;margin:-.2rem 0 .9rem;
color:var(--faint);font-size:.72rem;line-height:1.3}
figure.activity svg{flex:none;overflow:visible}
figure.chart{margin:1.2rem 0 1.6rem;color:var(--faint);font-size:.72rem}
figure.chart svg{width:100%;height:auto}
.legend{display:inline-flex;flex-wrap:wrap;gap:.15rem .6rem}
.legend i{display:inline-block;width:.6rem;height:.6rem;border-radius:2px;margin-right:.25rem;vertical-align:-.05rem}
.cite{position:relative;display:inline}
.card{position:absolute;left:0;bottom:calc(100% + 8px);z-index:20;display:block;width:320px;max-width:86vw;
padding:.65rem .8rem;background:var(--surface);color:var(--ink);border:1px solid var(--rule);border-radius:6px;
box-shadow:0 6px 24px rgba(0,0,0,.14),0 1px 3px rgba(0,0,0,.08);font:400 .8rem/1.45 "Helvetica Neue",Helvetica,Arial,sans-serif;
text-align:left;white-space:normal;opacity:0;visibility:hidden;transform:translateY(3px);
transition:opacity .14s ease,transform .14s ease,visibility .14s;pointer-events:none}
.cite:hover .card,.cite:focus-within .card{opacity:1;visibility:visible;transform:none}
.card>span{display:block}
.card-head{margin-bottom:.25rem}
.card-meta{display:inline;color:var(--faint);font-size:.72rem;margin-left:.35rem}
.card-title{font-weight:700;color:var(--ink)}
.card-by{color:var(--ink2);font-size:.74rem}
.card-desc{color:var(--ink2);margin-top:.2rem}
.badge{display:inline-block;padding:.05rem .4rem;border-radius:3px;font-size:.65rem;font-weight:700;
letter-spacing:.04em;font-variant:small-caps;text-transform:lowercase}
.badge-open{color:var(--open-fg);background:var(--open-bg)}
.badge-done{color:var(--done-fg);background:var(--done-bg)}
sup.cite-ref{font-size:.72em;line-height:0}
sup.cite-ref a{color:var(--accent)}
.sidenote{display:block;font-size:.8rem;line-height:1.5;color:var(--ink2)}
.sidenote p{margin:0 0 .4rem}
.sidenote-check{display:none}
.sidenote-toggle{display:none;cursor:pointer;color:var(--accent);font-size:.8rem;user-select:none}
@media (min-width:1060px){.sidenote{float:right;clear:right;width:230px;margin:.3rem -260px .8rem 0}}
@media (max-width:1059.98px){.sidenote-toggle{display:inline-block;margin:.2rem 0}
.sidenote{display:none;margin:.3rem 0 1rem;padding:.55rem .85rem;border-left:3px solid var(--accent);
background:var(--raised);border-radius:0 4px 4px 0}
.sidenote-check:checked~.sidenote{display:block}}
section.references{margin-top:2.5rem;font-size:.88rem}
section.references ol{list-style:none;padding:0;counter-reset:ref}
section.references li{counter-increment:ref;position:relative;padding-left:2.2rem;margin:.45rem 0}
section.references li::before{content:"[" counter(ref) "]";position:absolute;left:0;color:var(--accent);
font-variant-numeric:tabular-nums}
section.references li p{margin:0}
section.references li p>a:first-child,section.references li p>.cite:first-child>a{color:var(--ink)}
.ref-url{display:block;color:var(--faint);font-size:.78rem;word-break:break-all}
.footnote-backref{font-size:.8rem;color:var(--faint)}
footer.provenance{margin-top:3rem;padding-top:1rem;border-top:1px solid var(--rule);color:var(--faint);
font-size:.78rem;line-height:1.55}
footer.provenance p{margin:.4rem 0}
footer.provenance blockquote{margin:.6rem 0;padding-left:.8rem;border-left:2px solid var(--rule);
color:var(--faint);font-style:italic}
footer.provenance a{color:var(--ink2)}
#theme-toggle{position:fixed;top:.8rem;right:.8rem;width:2rem;height:2rem;border:1px solid var(--rule);
border-radius:50%;background:var(--raised);color:var(--ink2);cursor:pointer;font-size:.95rem;line-height:1}
@media print{#theme-toggle,.sidenote-toggle{display:none}.card{display:none}}
)css";

// The page's only behaviour: the live "Viewing" clock and the theme toggle.
const char* const kPageJs = R"js(
(function () {
  var clock = document.getElementById('viewing');
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function tick() {
    var d = new Date();
    clock.textContent = d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) +
      ' ' + pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC';
  }
  if (clock) { tick(); setInterval(tick, 1000); }
  var root = document.documentElement, button = document.getElementById('theme-toggle'), saved = null;
  try { saved = localStorage.getItem('umwelt-theme'); } catch (e) {}
  if (saved === 'light' || saved === 'dark') root.setAttribute('data-theme', saved);
  if (button) button.addEventListener('click', function () {
    var current = root.getAttribute('data-theme');
    var dark = current ? current === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches;
    var next = dark ? 'light' : 'dark';
    root.setAttribute('data-theme', next);
    try { localStorage.setItem('umwelt-theme', next); } catch (e) {}
  });
})();
)js";

}  // namespace umwelt::publish_internal
