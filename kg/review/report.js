// The page's only behaviour: sort tables, show long tables in full, zoom the diagram, copy a query. No network.
document.querySelectorAll("table.sortable").forEach((table) => {
  table.querySelectorAll("th").forEach((th, column) => {
    th.addEventListener("click", () => {
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const ascending = th.dataset.order !== "asc";
      const value = (row) => {
        const text = row.cells[column].innerText.trim();
        const number = parseFloat(text.replace(/,/g, ""));
        return isNaN(number) ? text.toLowerCase() : number;
      };
      rows.sort((a, b) => (value(a) > value(b) ? 1 : value(a) < value(b) ? -1 : 0) * (ascending ? 1 : -1));
      table.querySelectorAll("th").forEach((h) => delete h.dataset.order);
      th.dataset.order = ascending ? "asc" : "desc";
      rows.forEach((row) => body.appendChild(row));
      table.classList.add("expanded");
    });
  });
});
document.querySelectorAll("button.more").forEach((button) => {
  button.addEventListener("click", () => {
    const table = button.previousElementSibling;
    table.classList.toggle("expanded");
    button.textContent = table.classList.contains("expanded") ? "show fewer" : "show all " + button.dataset.rows;
  });
});
const canvas = document.querySelector(".canvas");
const svg = canvas && canvas.querySelector("svg");
let scale = 1;
document.querySelectorAll(".zoom button").forEach((button) => {
  button.addEventListener("click", () => {
    const factor = parseFloat(button.dataset.zoom);
    scale = factor === 0 ? 1 : Math.min(8, Math.max(0.5, scale * factor));
    if (svg) svg.style.width = (scale * 100) + "%";
  });
});
document.querySelectorAll("button.copy").forEach((button) => {
  button.addEventListener("click", () => {
    const text = button.parentElement.nextElementSibling.innerText;
    navigator.clipboard.writeText(text).then(() => { button.textContent = "copied"; });
  });
});
