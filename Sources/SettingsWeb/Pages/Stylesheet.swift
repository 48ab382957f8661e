/// The pages' style: iOS Settings' grouped table (inset groups, hairline
/// separators, grey background, blue accents), in plain CSS.
enum Stylesheet {
    static let css = """
    :root { color-scheme: light; --bg: #f2f2f7; --cell: #fff; --sep: #c6c6c8; --label: #000; --secondary: #6d6d72; --tint: #007aff; --green: #34c759; }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); font: 17px -apple-system, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif; color: var(--label); }
    header.nav { position: sticky; top: 0; background: rgba(248,248,248,.94); border-bottom: 1px solid var(--sep); display: grid; grid-template-columns: 1fr auto 1fr; align-items: center; padding: 10px 12px; min-height: 44px; }
    header.nav h1 { grid-column: 2; margin: 0; font-size: 17px; font-weight: 600; text-align: center; }
    header.nav a.back { grid-column: 1; color: var(--tint); text-decoration: none; }
    main { max-width: 680px; margin: 0 auto; padding: 8px 16px 40px; }
    .banner { margin: 16px 0 0; padding: 10px 14px; border-radius: 10px; background: #e5f6ea; }
    .banner.error { background: #fde8e7; }
    .banner ul { margin: 6px 0 0; padding-left: 20px; }
    section.group { margin-top: 28px; }
    section.group > h2 { margin: 0 0 6px 16px; font-size: 13px; font-weight: 400; text-transform: uppercase; color: var(--secondary); }
    section.group > p.footer { margin: 6px 16px 0; font-size: 13px; color: var(--secondary); }
    ul.cells { list-style: none; margin: 0; padding: 0; background: var(--cell); border-radius: 10px; overflow: hidden; }
    ul.cells > li { position: relative; min-height: 44px; padding: 11px 16px; display: flex; align-items: center; gap: 12px; }
    ul.cells > li + li::before { content: ""; position: absolute; top: 0; left: 16px; right: 0; border-top: 1px solid var(--sep); }
    .label { flex: 1; }
    .value { color: var(--secondary); }
    input[type=text], input[type=password] { flex: 1; border: 0; font: inherit; text-align: right; color: var(--secondary); background: transparent; min-width: 0; }
    input[type=text]:focus, input[type=password]:focus { outline: none; color: var(--label); }
    input[type=range] { flex: 1; accent-color: var(--tint); }
    li.slider img { width: 21px; height: 21px; }
    label.switch { position: relative; width: 51px; height: 31px; flex: none; }
    label.switch input { position: absolute; opacity: 0; width: 100%; height: 100%; margin: 0; cursor: pointer; z-index: 1; }
    label.switch span { position: absolute; inset: 0; background: #e9e9ea; border-radius: 31px; transition: background .2s; }
    label.switch span::after { content: ""; position: absolute; top: 2px; left: 2px; width: 27px; height: 27px; border-radius: 50%; background: #fff; box-shadow: 0 2px 4px rgba(0,0,0,.2); transition: transform .2s; }
    label.switch input:checked + span { background: var(--green); }
    label.switch input:checked + span::after { transform: translateX(20px); }
    label.switch input:disabled + span { opacity: .5; }
    details { flex: 1; }
    details > summary { list-style: none; display: flex; cursor: pointer; }
    details > summary::-webkit-details-marker { display: none; }
    details > summary::after, a.row::after { content: "›"; color: #c4c4c6; font-size: 22px; line-height: 20px; margin-left: 8px; }
    details[open] > summary::after { transform: rotate(90deg); }
    ul.choices { list-style: none; margin: 10px 0 0; padding: 0; }
    ul.choices li { padding: 8px 0; border-top: 1px solid var(--sep); }
    label.choice { display: flex; align-items: center; cursor: pointer; }
    label.choice input { position: absolute; opacity: 0; }
    label.choice span.check { margin-left: auto; color: var(--tint); visibility: hidden; font-weight: 600; }
    label.choice input:checked ~ span.check { visibility: visible; }
    label.choice input:focus-visible ~ span.title { text-decoration: underline; }
    a.row { flex: 1; display: flex; color: inherit; text-decoration: none; }
    .managed { display: block; font-size: 12px; color: #b25000; }
    li.disabled .label, li.disabled .value { color: var(--secondary); }
    li.foreign { color: var(--secondary); font-style: italic; }
    .actions { display: flex; gap: 10px; margin-top: 28px; flex-wrap: wrap; }
    .actions button { flex: 1; font: inherit; padding: 12px; border-radius: 10px; border: 0; background: var(--cell); color: var(--tint); cursor: pointer; }
    .actions button.primary { background: var(--tint); color: #fff; font-weight: 600; }
    small.domain { display: block; color: var(--secondary); font-size: 13px; }
    """
}
