// The account's avatar: a symmetric 5×5 pattern and a colour drawn from the address itself, as
// SVG, so it needs no emoji font (RainbowKit's default avatar is an emoji, a box where none is
// installed). The wallet's ENS image is used when it has one.
import type { AvatarComponent } from "@rainbow-me/rainbowkit";

/** 15 bits for the left three columns (mirrored) and a hue, from the address's hex digits. */
function patternOf(address: string): { cells: boolean[]; hue: number } {
  const hex = address.toLowerCase().replace(/^0x/, "").replace(/[^0-9a-f]/g, "");
  const digits = hex.length > 0 ? hex : "0";
  const at = (index: number) => Number.parseInt(digits[index % digits.length] ?? "0", 16);
  const cells = Array.from({ length: 15 }, (_, index) => at(index * 2 + 1) % 2 === 1);
  const hue = (at(0) * 16 + at(1) * 7 + at(digits.length - 1) * 3) % 360;
  return { cells, hue };
}

export const Identicon: AvatarComponent = ({ address, ensImage, size }) => {
  if (ensImage) {
    return <img src={ensImage} width={size} height={size} alt="" style={{ borderRadius: "50%" }} />;
  }
  const { cells, hue } = patternOf(address);
  const squares = cells.flatMap((on, index) => {
    if (!on) return [];
    const row = Math.floor(index / 3);
    const column = index % 3;
    return column === 2 ? [[column, row]] : [[column, row], [4 - column, row]];
  });
  return (
    <svg width={size} height={size} viewBox="-1 -1 7 7" aria-hidden="true" data-testid="account-avatar" style={{ borderRadius: "50%", background: `hsl(${hue} 45% 92%)` }}>
      {squares.map(([x, y]) => (
        <rect key={`${x}-${y}`} x={x} y={y} width={1.02} height={1.02} fill={`hsl(${hue} 60% 42%)`} />
      ))}
    </svg>
  );
};
