#!/usr/bin/python3
"""Dump a workbook as text for golden tests: per sheet its name, frozen panes,
autofilter range, column widths and charts, then every non-empty cell as
COORD TYPE FORMAT VALUE (openpyxl's data_type: s string, n number, b bool, f formula).
Long strings are shown by length and both ends; control characters are escaped.

usage: xlsx_dump.py FILE.xlsx [--check] [--structure]
--check also asserts the invariants of a tracedoc workbook: no formula cells, every
data sheet has its header frozen and an autofilter, the first sheet has a chart when it
shows a GPU time breakdown.
--structure prints only the layout (sheets, header rows, number formats per column,
row counts), not the values: for goldens of real traces, whose numbers the analysis
owns and other tests check."""
import re
import sys
import zipfile

import openpyxl


def show(v):
    if isinstance(v, str):
        s = v
        if len(s) > 200:
            s = "%s...[%d chars]...%s" % (s[:60], len(v), s[-60:])
        return repr(s)
    if isinstance(v, float):
        return repr(round(v, 9))
    return repr(v)


def charts_of(path):
    """sheet xml name -> number of charts, from the drawing relationships."""
    z = zipfile.ZipFile(path)
    names = set(z.namelist())
    out = {}
    for n in sorted(names):
        m = re.match(r"xl/worksheets/_rels/(sheet\d+)\.xml\.rels$", n)
        if not m:
            continue
        for d in re.findall(r'Target="\.\./drawings/(drawing\d+)\.xml"', z.read(n).decode()):
            rel = "xl/drawings/_rels/%s.xml.rels" % d
            if rel in names:
                out[m.group(1)] = len(re.findall(r"charts/chart\d+\.xml", z.read(rel).decode()))
    return out, sorted(n for n in names if n.startswith("xl/charts/"))


def main():
    path = sys.argv[1]
    check = "--check" in sys.argv[2:]
    structure = "--structure" in sys.argv[2:]
    wb = openpyxl.load_workbook(path)
    charts, chart_files = charts_of(path)
    errors = []
    print("workbook: %d sheets, charts: %s" % (len(wb.sheetnames), " ".join(chart_files)))
    print("title: %s" % show(wb.properties.title))
    print("created: %s" % wb.properties.created.isoformat())
    for i, ws in enumerate(wb.worksheets):
        xmlname = "sheet%d" % (i + 1)
        print()
        print("== sheet %s" % show(ws.title))
        print("dimensions: %s  freeze: %s  autofilter: %s  charts: %d" % (
            ws.dimensions, ws.freeze_panes, ws.auto_filter.ref, charts.get(xmlname, 0)))
        if structure:
            formats = {}
            for row in ws.iter_rows(min_row=2):
                for c in row:
                    if c.value is not None:
                        formats.setdefault(c.column_letter, set()).add(
                            "%s:%s" % (c.data_type, c.number_format))
            print("rows: %d" % ws.max_row)
            for c in ws[1] if i > 0 else ():
                if c.value is not None:
                    print("%s %r %s" % (c.coordinate, c.value,
                                        " ".join(sorted(formats.get(c.column_letter, ())))))
            if i == 0:
                print("labels: %s" % ", ".join(repr(c.value) for c in ws["A"][3:]
                                               if isinstance(c.value, str) and not c.value.isdigit()))
        widths = []
        for letter, dim in sorted(ws.column_dimensions.items(),
                                  key=lambda kv: (len(kv[0]), kv[0])):
            if dim.width:
                widths.append("%s=%g" % (letter, dim.width))
        if not structure:
            print("widths: %s" % " ".join(widths))
        for row in ws.iter_rows():
            for c in row:
                if c.value is None:
                    continue
                if c.data_type == "f":
                    errors.append("%s!%s is a formula" % (ws.title, c.coordinate))
                if structure:
                    continue
                link = ""
                if c.hyperlink is not None:
                    link = " -> %s" % (c.hyperlink.location or c.hyperlink.target)
                print("%s %s %s %s%s" % (c.coordinate, c.data_type, c.number_format,
                                         show(c.value), link))
        if check:
            breakdown = any(str(c.value).startswith("GPU time breakdown") for c in ws["A"])
            if i == 0 and breakdown and charts.get(xmlname, 0) < 1:
                errors.append("%s: no chart on the first sheet" % ws.title)
            if i > 0 and (ws.freeze_panes != "A2" or not ws.auto_filter.ref):
                errors.append("%s: header not frozen or no autofilter" % ws.title)
    if errors:
        for e in errors:
            print("ERROR: " + e, file=sys.stderr)
        sys.exit(1)


main()
