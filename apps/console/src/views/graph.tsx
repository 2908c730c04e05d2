import { useEffect, useRef, useState } from 'preact/hooks';
import cytoscape from 'cytoscape';
import { useLoad, type OperationOutput } from '../api.ts';
import { pathOf } from '../router.ts';
import { Badge, Field, Link, Show } from '../ui.tsx';

type GraphNode = OperationOutput<'listGraphNodes'>['nodes'][number];

/** The knowledge graph drawn by cytoscape: current edges solid, historical ones dashed. */
export function GraphView(props: { spaceId: string }) {
  const { spaceId } = props;
  const nodes = useLoad((c) => c.call('listGraphNodes', { spaceId, limit: 100 }), [spaceId]);
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <section aria-labelledby="graph-title">
      <h2 id="graph-title">Knowledge graph</h2>
      <Show loaded={nodes} what="the graph">
        {(page) =>
          page.nodes.length === 0 ? (
            <p>No graph nodes yet: they are derived from memory events.</p>
          ) : (
            <div class="graph-layout">
              <Picture nodes={page.nodes} onSelect={setSelected} />
              <div>
                <Field label="Node" id="graph-node">
                  <select
                    id="graph-node"
                    value={selected ?? ''}
                    onChange={(e) => setSelected(e.currentTarget.value || null)}
                  >
                    <option value="">Pick a node (or click one in the picture)</option>
                    {page.nodes.map((n) => (
                      <option key={n.id} value={n.id}>
                        {n.name} ({n.type})
                      </option>
                    ))}
                  </select>
                </Field>
                {selected ? (
                  <NodeDetail
                    spaceId={spaceId}
                    node={page.nodes.find((n) => n.id === selected)}
                    names={new Map(page.nodes.map((n) => [n.id, n.name]))}
                  />
                ) : null}
              </div>
            </div>
          )
        }
      </Show>
    </section>
  );
}

function Picture(props: { nodes: GraphNode[]; onSelect(id: string): void }) {
  const box = useRef<HTMLDivElement>(null);
  const select = useRef(props.onSelect);
  select.current = props.onSelect;
  useEffect(() => {
    if (!box.current) return;
    const known = new Set(props.nodes.map((n) => n.id));
    const edges = props.nodes.flatMap((n) => [
      ...n.currentEdges.map((e) => ({ ...e, current: true })),
      ...n.historicalEdges.map((e) => ({ ...e, current: false })),
    ]);
    const seen = new Set<string>();
    const cy = cytoscape({
      container: box.current,
      elements: [
        ...props.nodes.map((n) => ({
          data: { id: n.id, label: `${n.name}\n${n.type}`, status: n.status },
        })),
        ...edges
          .filter(
            (e) => known.has(e.fromId) && known.has(e.toId) && !seen.has(e.id) && seen.add(e.id),
          )
          .map((e) => ({
            data: {
              id: e.id,
              source: e.fromId,
              target: e.toId,
              label: e.relation,
              current: e.current ? 'yes' : 'no',
            },
          })),
      ],
      style: [
        {
          selector: 'node',
          style: {
            label: 'data(label)',
            'text-wrap': 'wrap',
            'text-valign': 'center',
            'font-size': 10,
            width: 70,
            height: 70,
            'background-color': '#dbe7ff',
            'border-width': 2,
            'border-color': '#3561c7',
          },
        },
        { selector: 'node[status != "active"]', style: { 'border-style': 'dashed', opacity: 0.6 } },
        { selector: 'node:selected', style: { 'border-color': '#c75b00', 'border-width': 4 } },
        {
          selector: 'edge',
          style: {
            label: 'data(label)',
            'font-size': 9,
            'curve-style': 'bezier',
            'target-arrow-shape': 'triangle',
            'line-color': '#555',
            'target-arrow-color': '#555',
            width: 2,
          },
        },
        {
          selector: 'edge[current = "no"]',
          style: { 'line-style': 'dashed', 'line-color': '#aaa', 'target-arrow-color': '#aaa' },
        },
      ],
      layout: { name: 'cose', animate: false, randomize: false, padding: 20 },
    });
    cy.on('tap', 'node', (event) => select.current(event.target.id() as string));
    return () => cy.destroy();
  }, [props.nodes]);
  return (
    <div
      ref={box}
      class="graph"
      role="img"
      aria-label={`Graph of ${props.nodes.length} nodes; pick a node in the list beside it for its facts`}
    />
  );
}

const eventLinks = (spaceId: string, ids: string[]) =>
  ids.map((id, i) => (
    <span key={id}>
      {i > 0 ? ', ' : ''}
      <Link href={pathOf('spaces', spaceId, 'events', id)}>{id}</Link>
    </span>
  ));

function NodeDetail(props: {
  spaceId: string;
  node: GraphNode | undefined;
  names: Map<string, string>;
}) {
  const { spaceId, node, names } = props;
  if (!node) return null;
  const value = (v: string | string[]) => (Array.isArray(v) ? v.join(', ') : v);
  return (
    <article aria-labelledby="node-title" class="node-detail">
      <h3 id="node-title">
        {node.name} <Badge>{node.type}</Badge> <Badge kind={node.status}>{node.status}</Badge>
      </h3>
      {node.aliases.length > 0 ? <p>Also: {node.aliases.join(', ')}</p> : null}
      <p>{node.currentState}</p>
      <h4>Current facts</h4>
      <ul>
        {node.currentFacts.map((f) => (
          <li key={f.id}>
            <strong>{f.key}</strong>: {value(f.value)}
            {f.disputed ? <Badge kind="conflict">disputed</Badge> : null}{' '}
            <span class="muted">
              from {f.validFrom ?? '?'} · confidence {f.confidence} · sources:{' '}
              {eventLinks(spaceId, f.sourceEventIds)}
            </span>
          </li>
        ))}
      </ul>
      {node.historicalFacts.length > 0 ? (
        <>
          <h4>Earlier facts</h4>
          <ul>
            {node.historicalFacts.map((f) => (
              <li key={f.id}>
                <s>
                  {f.key}: {value(f.value)}
                </s>{' '}
                <span class="muted">
                  {f.validFrom ?? '?'} – {f.validTo ?? '?'} · sources:{' '}
                  {eventLinks(spaceId, f.sourceEventIds)}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h4>Edges</h4>
      <ul>
        {[...node.currentEdges, ...node.historicalEdges].map((e) => (
          <li key={e.id}>
            {names.get(e.fromId) ?? e.fromId} <em>{e.relation}</em> {names.get(e.toId) ?? e.toId}{' '}
            <Badge kind={e.status}>{e.status}</Badge>{' '}
            <span class="muted">sources: {eventLinks(spaceId, e.sourceEventIds)}</span>
          </li>
        ))}
      </ul>
    </article>
  );
}
