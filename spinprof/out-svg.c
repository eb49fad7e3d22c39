/* spinprof --format=svg and --format=icicle: a flame graph (Brendan Gregg's) of the folded stacks
 * (out-folded.c), written whole by spinprof: one box per frame of the merged stacks, as wide as its
 * weight, coloured by its module, with a script of our own for search, zoom on click and the
 * details of the frame under the mouse. Boxes narrower than 0.1 pixel are left out, as flamegraph.pl
 * does by default. */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out-svg.h"

#define SVG_WIDTH 1200
#define SVG_PAD 10     /* left and right */
#define SVG_FRAME_H 16 /* a frame's height */
#define SVG_TOP 62     /* title, legend, then the frames */
#define SVG_BOTTOM 34  /* the details line */
#define SVG_MIN_PX 0.1 /* narrower boxes are left out */
#define SVG_FONT 12
#define SVG_CHAR_W 7.08 /* a character's width at SVG_FONT, for the labels that fit */

/* A name's hash, for the colour's variation within its module's palette. */
static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Palettes, [r, g, b] base and spread: the executable's are flamegraph.pl's "hot", each other
 * module takes the next of the others. */
static const int palettes[][6] = {
	{ 205, 50, 0, 230, 0, 55 },    /* the executable: red to yellow */
	{ 50, 60, 165, 55, 165, 55 },  /* aqua */
	{ 80, 60, 190, 55, 80, 50 },   /* green */
	{ 80, 50, 130, 60, 220, 35 },  /* blue */
	{ 160, 60, 100, 50, 200, 55 }, /* purple */
	{ 175, 55, 175, 55, 50, 20 },  /* yellow */
};
#define NPAL (sizeof(palettes) / sizeof(palettes[0]))

/* The palette of a module (a mod of fold_mod: -1 grey, -2 the threads') */
static int palette_of(const struct fold *fo, int mod)
{
	const struct gmon_profile *g = &fo->m.p->spy;
	if (mod < 0 || (uint32_t)mod >= g->nmodules)
		return -1;
	if (g->modules[mod].flags & GMON_MOD_MAIN)
		return 0;
	int k = 0;
	for (int i = 0; i < mod; i++)
		k += !(g->modules[i].flags & GMON_MOD_MAIN);
	return 1 + k % (int)(NPAL - 1);
}

static void colour(FILE *f, const struct fold *fo, const struct box *b)
{
	unsigned h = name_hash(b->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0, v3 = ((h >> 16) & 0xff) / 255.0;
	if (b->depth == 0) {
		fputs("rgb(200,200,200)", f);
		return;
	}
	if (b->mod == FOLD_THREAD) {
		fprintf(f, "rgb(%d,%d,230)", 190 + (int)(30 * v1), 190 + (int)(30 * v1));
		return;
	}
	int pi = palette_of(fo, b->mod);
	if (pi < 0) {
		int grey = 160 + (int)(40 * v1);
		fprintf(f, "rgb(%d,%d,%d)", grey, grey, grey);
		return;
	}
	const int *c = palettes[pi];
	fprintf(f, "rgb(%d,%d,%d)", c[0] + (int)(c[1] * v1), c[2] + (int)(c[3] * v2),
		c[4] + (int)(c[5] * v3));
}

/* The label that fits in w pixels: the name, or its start and "..", or nothing; counted in the
 * characters of its text form (esc.h), which is what XML shows of it. */
static void label(FILE *f, const char *name, double w)
{
	size_t fit = (size_t)prof_u64(w / SVG_CHAR_W), len = strlen(name);
	if (fit < 3)
		return;
	if (esc_text_fit(name, fit) == len) {
		esc_put(f, name, ESC_XML);
		return;
	}
	char *s = xstrdup(name);
	s[esc_text_fit(name, fit - 2)] = 0;
	esc_put(f, s, ESC_XML);
	fputs("..", f);
	free(s);
}

struct box *svg_layout(const struct fold *fo, size_t *nboxes, uint32_t *maxdepth)
{
	size_t nr = 0, alloc = 0;
	struct box *bx = NULL;
	uint32_t open_alloc = 16, nopen = 0, maxd = 0;
	size_t *open = xmalloc(open_alloc * sizeof(size_t)); /* open boxes, by depth - 1 */
	GROW(bx, nr, alloc);
	bx[nr++] = (struct box){ "all", FOLD_NOMOD, 0, 0, fo->total };
	double x = 0;
	const struct fold_stack *prev = NULL;
	for (size_t i = 0; i < fo->n; i++) {
		const struct fold_stack *s = &fo->stacks[i];
		uint32_t common = 0;
		if (prev)
			while (common < prev->depth && common < s->depth && common < nopen &&
			       !strcmp(fo->names[prev->at + common], fo->names[s->at + common]))
				common++;
		for (; nopen > common; nopen--)
			bx[open[nopen - 1]].w = x - bx[open[nopen - 1]].x;
		for (uint32_t d = common; d < s->depth; d++) {
			if (nopen >= open_alloc) {
				open_alloc *= 2;
				open = xrealloc(open, open_alloc * sizeof(size_t));
			}
			GROW(bx, nr, alloc);
			bx[nr] = (struct box){ fo->names[s->at + d], fo->mods[s->at + d], d + 1, x, 0 };
			open[nopen++] = nr++;
		}
		if (s->depth > maxd)
			maxd = s->depth;
		x += s->w;
		prev = s;
	}
	for (; nopen > 0; nopen--)
		bx[open[nopen - 1]].w = x - bx[open[nopen - 1]].x;
	free(open);
	*nboxes = nr;
	*maxdepth = maxd;
	return bx;
}

/* The script: the details of the frame under the mouse, zoom on click (the frame fills the width,
 * the frames outside it are hidden and those below it stretched and dimmed), search by regular
 * expression (matches in magenta and the share of all weight they cover). Frames carry their place
 * in weight units (data-x, data-n) and depth (data-d), so zooming redraws from them. */
static const char script[] =
	"var fg = (function () {\n"
	"\tvar W = %d, PAD = %d, CW = %g;\n"
	"\tvar frames = document.getElementById('fg-frames').getElementsByTagName('g');\n"
	"\tvar details = document.getElementById('fg-details').firstChild;\n"
	"\tvar zoomed = null, total = 0;\n"
	"\tfunction num(e, k) { return parseFloat(e.getAttribute('data-' + k)); }\n"
	"\tfunction nameOf(e) { return e.getAttribute('data-name'); }\n"
	"\tfunction fit(e, w) {\n"
	"\t\tvar t = e.getElementsByTagName('text')[0], n = nameOf(e), c = Math.floor(w / CW);\n"
	"\t\tt.textContent = c < 3 ? '' : n.length <= c ? n : n.substring(0, c - 2) + '..';\n"
	"\t}\n"
	"\tfunction place(e, x, w) {\n"
	"\t\tvar r = e.getElementsByTagName('rect')[0], t = e.getElementsByTagName('text')[0];\n"
	"\t\tr.setAttribute('x', x.toFixed(2));\n"
	"\t\tr.setAttribute('width', w.toFixed(2));\n"
	"\t\tt.setAttribute('x', (x + 3).toFixed(2));\n"
	"\t\tfit(e, w);\n"
	"\t}\n"
	"\tfunction zoom(z) {\n"
	"\t\tvar zx = num(z, 'x'), zn = num(z, 'n'), zd = num(z, 'd'), eps = zn * 1e-9;\n"
	"\t\tvar scale = (W - 2 * PAD) / zn;\n"
	"\t\tzoomed = z;\n"
	"\t\tfor (var i = 0; i < frames.length; i++) {\n"
	"\t\t\tvar e = frames[i], x = num(e, 'x'), n = num(e, 'n'), d = num(e, 'd');\n"
	"\t\t\te.classList.remove('fg-parent');\n"
	"\t\t\tif (d < zd && x <= zx + eps && x + n >= zx + zn - eps) {\n"
	"\t\t\t\te.style.display = '';\n"
	"\t\t\t\tif (d < zd) e.classList.add('fg-parent');\n"
	"\t\t\t\tplace(e, PAD, W - 2 * PAD);\n"
	"\t\t\t} else if (d >= zd && x >= zx - eps && x + n <= zx + zn + eps && n * scale >= 0.1) {\n"
	"\t\t\t\te.style.display = '';\n"
	"\t\t\t\tplace(e, PAD + (x - zx) * scale, n * scale);\n"
	"\t\t\t} else {\n"
	"\t\t\t\te.style.display = 'none';\n"
	"\t\t\t}\n"
	"\t\t}\n"
	"\t\tdocument.getElementById('fg-unzoom').style.opacity = zd > 0 ? 1 : 0;\n"
	"\t}\n"
	"\tfunction search(re) {\n"
	"\t\tvar spans = [], m = null;\n"
	"\t\ttry { m = re ? new RegExp(re) : null; } catch (err) { m = null; }\n"
	"\t\tfor (var i = 0; i < frames.length; i++) {\n"
	"\t\t\tvar e = frames[i], r = e.getElementsByTagName('rect')[0];\n"
	"\t\t\tvar hit = m && num(e, 'd') > 0 && m.test(nameOf(e));\n"
	"\t\t\tif (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
	"\t\t\tr.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
	"\t\t\tif (hit) spans.push([num(e, 'x'), num(e, 'x') + num(e, 'n')]);\n"
	"\t\t}\n"
	"\t\t/* the share covered: nested matches count once */\n"
	"\t\tspans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"\t\tvar covered = 0, end = -Infinity;\n"
	"\t\tfor (var j = 0; j < spans.length; j++) {\n"
	"\t\t\tif (spans[j][0] >= end) { covered += spans[j][1] - spans[j][0]; end = spans[j][1]; }\n"
	"\t\t\telse if (spans[j][1] > end) { covered += spans[j][1] - end; end = spans[j][1]; }\n"
	"\t\t}\n"
	"\t\tvar t = document.getElementById('fg-matched');\n"
	"\t\tt.textContent = m ? 'Matched: ' + (100 * covered / total).toFixed(2) + '%%' : '';\n"
	"\t\tdocument.getElementById('fg-search').textContent = m ? 'Reset search' : 'Search';\n"
	"\t\treturn m ? covered : 0;\n"
	"\t}\n"
	"\tfor (var i = 0; i < frames.length; i++) {\n"
	"\t\tvar e = frames[i];\n"
	"\t\tif (num(e, 'd') === 0) total = num(e, 'n');\n"
	"\t\te.addEventListener('mouseover', function () {\n"
	"\t\t\tdetails.nodeValue = 'Function: ' + this.getElementsByTagName('title')[0].textContent;\n"
	"\t\t});\n"
	"\t\te.addEventListener('mouseout', function () { details.nodeValue = ' '; });\n"
	"\t\te.addEventListener('click', function () { zoom(this); });\n"
	"\t}\n"
	"\tdocument.getElementById('fg-unzoom').addEventListener('click', function () {\n"
	"\t\tzoom(document.getElementById('fg-root'));\n"
	"\t});\n"
	"\tdocument.getElementById('fg-search').addEventListener('click', function () {\n"
	"\t\tif (this.textContent !== 'Search') { search(null); return; }\n"
	"\t\tvar re = prompt('Search for (a regular expression):', '');\n"
	"\t\tif (re) search(re);\n"
	"\t});\n"
	"\tfunction zoomTo(name) {\n"
	"\t\tfor (var i = 0; i < frames.length; i++)\n"
	"\t\t\tif (nameOf(frames[i]) === name && num(frames[i], 'd') > 0) { zoom(frames[i]); return frames[i]; }\n"
	"\t\treturn null;\n"
	"\t}\n"
	"\t/* a file of its own answers #zoom=NAME and #search=REGEX (joined by &) for browser tests:\n"
	"\t * what it then shows goes to the root's data-selftest */\n"
	"\tvar root = document.getElementById('fg'), out = [];\n"
	"\tif (document.documentElement === root) {\n"
	"\t\tlocation.hash.replace(/^#/, '').split('&').forEach(function (kv) {\n"
	"\t\t\tvar at = kv.indexOf('='), k = kv.slice(0, at), v = decodeURIComponent(kv.slice(at + 1));\n"
	"\t\t\tif (k === 'zoom') {\n"
	"\t\t\t\tif (!zoomTo(v)) { out.push('no frame ' + v); return; }\n"
	"\t\t\t\tfor (var i = 0; i < frames.length; i++)\n"
	"\t\t\t\t\tif (frames[i].style.display !== 'none')\n"
	"\t\t\t\t\t\tout.push(frames[i].getAttribute('data-d') + ' ' + nameOf(frames[i]) + ' ' +\n"
	"\t\t\t\t\t\t\t frames[i].getElementsByTagName('rect')[0].getAttribute('width'));\n"
	"\t\t\t} else if (k === 'search') {\n"
	"\t\t\t\tsearch(v);\n"
	"\t\t\t\tout.push(document.getElementById('fg-matched').textContent);\n"
	"\t\t\t}\n"
	"\t\t});\n"
	"\t\tif (out.length) root.setAttribute('data-selftest', out.join('; '));\n"
	"\t}\n"
	"\troot.setAttribute('data-ready', '1');\n"
	"\treturn { zoom: zoom, search: search, frames: frames, zoomTo: zoomTo };\n"
	"})();\n";

void svg_flame(FILE *f, const struct fold *fo, const char *title, unsigned flags)
{
	size_t nb;
	uint32_t maxd;
	struct box *bx = svg_layout(fo, &nb, &maxd);
	int icicle = (flags & SVG_ICICLE) != 0;
	double scale = fo->total > 0 ? (SVG_WIDTH - 2 * SVG_PAD) / fo->total : 0;
	int height = SVG_TOP + (int)(maxd + 1) * SVG_FRAME_H + SVG_BOTTOM;
	if (!(flags & SVG_INLINE))
		fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", f);
	fprintf(f,
		"<svg version=\"1.1\" id=\"fg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	fprintf(f,
		"<style type=\"text/css\">\n"
		"#fg text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		"#fg #fg-title { font-size: 17px; }\n"
		"#fg-frames g:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
		"#fg-frames g text { pointer-events: none; }\n"
		"#fg .fg-parent { opacity: 0.5; }\n"
		"#fg-unzoom, #fg-search { cursor: pointer; }\n"
		"</style>\n",
		SVG_FONT);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(238,238,238)\"/>\n",
		SVG_WIDTH, height);
	fprintf(f, "<text id=\"fg-title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", SVG_WIDTH / 2);
	esc_put(f, title, ESC_XML);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"fg-unzoom\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n",
		SVG_PAD);
	fprintf(f, "<text id=\"fg-search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		SVG_WIDTH - SVG_PAD);
	fprintf(f, "<text id=\"fg-details\" x=\"%d\" y=\"%d\"> </text>\n", SVG_PAD, height - 12);
	fprintf(f, "<text id=\"fg-matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		SVG_WIDTH - SVG_PAD, height - 12);
	/* the legend: a square per palette in use and the modules it stands for */
	fputs("<g id=\"fg-legend\">", f);
	const struct gmon_profile *g = &fo->m.p->spy;
	double lx = SVG_PAD;
	for (uint32_t i = 0; i < g->nmodules && lx < SVG_WIDTH - 200; i++) {
		int used = 0;
		for (size_t k = 1; k < nb && !used; k++)
			used = bx[k].mod == (int)i;
		if (!used)
			continue;
		const int *c = palettes[palette_of(fo, (int)i)];
		const char *base = strrchr(g->modules[i].path, '/');
		base = base ? base + 1 : g->modules[i].path;
		fprintf(f,
			"<rect x=\"%.0f\" y=\"36\" width=\"12\" height=\"12\" fill=\"rgb(%d,%d,%d)\"/>"
			"<text x=\"%.0f\" y=\"46\">",
			lx, c[0] + c[1] / 2, c[2] + c[3] / 2, c[4] + c[5] / 2, lx + 16);
		esc_put(f, base[0] ? base : "?", ESC_XML);
		fputs("</text>", f);
		lx += 16 + SVG_CHAR_W * (double)(strlen(base) + 3);
	}
	fputs("</g>\n<g id=\"fg-frames\">\n", f);
	for (size_t k = 0; k < nb; k++) {
		const struct box *b = &bx[k];
		double px = b->w * scale;
		if (px < SVG_MIN_PX && k)
			continue;
		double x = SVG_PAD + b->x * scale;
		int y = icicle ? SVG_TOP + (int)b->depth * SVG_FRAME_H :
				 height - SVG_BOTTOM - (int)(b->depth + 1) * SVG_FRAME_H;
		fprintf(f, "<g%s data-d=\"%u\" data-x=\"%.17g\" data-n=\"%.17g\" data-name=\"",
			k ? "" : " id=\"fg-root\"", b->depth, b->x, b->w);
		esc_put(f, b->name, ESC_XML);
		fputs("\"><title>", f);
		esc_put(f, b->name, ESC_XML);
		fputs(" (", f);
		fold_print_w(f, b->w);
		fprintf(f, " %s, %.2f%%)</title>", fo->unit, fo->total > 0 ? 100.0 * b->w / fo->total : 0.0);
		fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"", x, y,
			px, SVG_FRAME_H - 1);
		colour(f, fo, b);
		fprintf(f, "\"/><text x=\"%.2f\" y=\"%d\">", x + 3, y + SVG_FRAME_H - 4);
		label(f, b->name, px);
		fputs("</text></g>\n", f);
	}
	fputs("</g>\n<script type=\"text/ecmascript\"><![CDATA[\n", f);
	fprintf(f, script, SVG_WIDTH, SVG_PAD, SVG_CHAR_W);
	fputs("]]></script>\n</svg>\n", f);
	free(bx);
}

static int write_flame(FILE *f, const struct prof *p, const struct out_opts *o, unsigned flags)
{
	struct fold fo;
	if (fold_build_or_say(&fo, p, o) < 0)
		return -1;
	char title[300];
	snprintf(title, sizeof(title), "%s graph: %s", flags & SVG_ICICLE ? "Icicle" : "Flame", o->what);
	svg_flame(f, &fo, title, flags);
	fold_release(&fo);
	return 0;
}

int out_svg(FILE *f, const struct prof *p, const struct out_opts *o)
{
	return write_flame(f, p, o, 0);
}

int out_icicle(FILE *f, const struct prof *p, const struct out_opts *o)
{
	return write_flame(f, p, o, SVG_ICICLE);
}
