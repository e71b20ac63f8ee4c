// A link into a folded section (lmnotes.book.fold) opens it: on load and when the address's
// fragment changes, every closed <details> around the target is opened and the target scrolled
// into view.
function lmnotesOpenTarget() {
  const id = decodeURIComponent(location.hash.slice(1));
  const target = id && document.getElementById(id);
  if (!target) return;
  let opened = false;
  for (let d = target.closest('details'); d; d = d.parentElement.closest('details')) {
    if (!d.open) { d.open = true; opened = true; }
  }
  if (opened) target.scrollIntoView();
}
window.addEventListener('hashchange', lmnotesOpenTarget);
document.addEventListener('DOMContentLoaded', lmnotesOpenTarget);

// A box that scrolls sideways says so (_static/lmnotes.css): every box around a table or a
// figure that scrolls (overflow-x auto or scroll) is watched, and while its content is wider
// than the box it is marked .lmnotes-scrolls (a hint above it, a faded right edge), and
// .lmnotes-scrolled-end once scrolled to its end. Watched for size, so that a table in a fold
// that opens, a formula typeset late or a phone turned sideways is marked as it is shown.
function lmnotesMarkScrolling(box) {
  const more = box.scrollWidth > box.clientWidth + 1;
  box.classList.toggle('lmnotes-scrolls', more);
  box.classList.toggle('lmnotes-scrolled-end', more && box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
}
const lmnotesWatched = new WeakSet();
const lmnotesResized = new ResizeObserver(entries => {
  for (const e of entries) {
    const box = e.target.classList.contains('lmnotes-scrollbox') ? e.target : e.target.closest('.lmnotes-scrollbox');
    if (box) lmnotesMarkScrolling(box);
  }
});
function lmnotesWatchScrolling() {
  const article = document.querySelector('article.bd-article') || document.body;
  for (const el of article.querySelectorAll('table, img')) {
    let box = el.parentElement;
    while (box && box !== article && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX))
      box = box.parentElement;
    if (!box || box === article) continue;
    lmnotesResized.observe(el);
    if (lmnotesWatched.has(box)) continue;
    lmnotesWatched.add(box);
    box.classList.add('lmnotes-scrollbox');
    lmnotesResized.observe(box);
    box.addEventListener('scroll', () => lmnotesMarkScrolling(box), {passive: true});
  }
}
document.addEventListener('DOMContentLoaded', lmnotesWatchScrolling);
window.addEventListener('resize', lmnotesWatchScrolling);
