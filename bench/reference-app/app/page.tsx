export default function Page() {
  return <p>Reference app for the benchmarks.</p>;
}
