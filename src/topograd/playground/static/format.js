// Numbers as topograd writes them everywhere (the page, the notebook's stepper, the command
// line): Python's format(x, ".6g"). Loaded first, by the page and by the notebook's widget.
"use strict";

// The page's one number formatter, with the command line's rules: Python's format(x, ".6g")
// (six significant digits, exponents from 1e-05 and 1e+06 on, ties to even), and "inf",
// "-inf", "nan", "-0". The server sends non-finite numbers as those strings.
function number(x) {
  if (typeof x === "string") return x;
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const sign = x < 0 ? "-" : "";
  const { digits, exponent } = sixDigits(Math.abs(x));
  if (exponent < -4 || exponent >= 6) {
    const mantissa = trimZeros(`${digits[0]}.${digits.slice(1)}`);
    const power = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${power}`;
  }
  const fixed =
    exponent >= 0
      ? `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`
      : `0.${"0".repeat(-exponent - 1)}${digits}`;
  return sign + trimZeros(fixed);
}

// The six significant digits of x > 0 and its decimal exponent, rounded as Python rounds:
// toExponential rounds a tie away from zero; an exact tie (the digits after the sixth are 5
// and then zeros, in x's exact expansion) goes to the even sixth digit instead.
function sixDigits(x) {
  const [rounded, power] = x.toExponential(5).split("e");
  const [exact, exactPower] = x.toExponential(99).split("e");
  const all = exact.replace(".", "");
  const tie = /^50*$/.test(all.slice(6));
  if (tie && Number(all[5]) % 2 === 0) return { digits: all.slice(0, 6), exponent: Number(exactPower) };
  return { digits: rounded.replace(".", ""), exponent: Number(power) };
}

function trimZeros(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}
